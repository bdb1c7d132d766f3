"""What is left of a launch whose DRAM traffic is already the ideal bytes (pure).

Its time above the ideal time at the copy bandwidth is split by what the family
measured: at most the family's fixed cost per launch, and the rest its DRAM stream
running below the copy bandwidth. Where the same variant runs closer to the copy
bandwidth at another size, that size is named: reduction ``v4`` at 2^24 is 3.9 us above
its 15.9 us ideal time, of which the family's fixed cost is 0.4 us, and it reaches 99%
of the copy bandwidth at 2^26; calling the 3.9 us "per launch" contradicted its own
floor.

Where the variant's marginal rate between two memory-bound sizes is at or above the
copy bandwidth (:mod:`nsightflow.diagnosis.marginal`), the copy bandwidth is no
ceiling of its stream and the gap is paid once per launch: :func:`gap_bound` says so,
with what amortizes it and a floor at the marginal rate (``v4`` at 2^24: 5.0 us per
launch of its 19.8 us, floor 14.8 us, where the copy bandwidth said 0.4 us and 16.4 us).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.floors import Bound, bounded
from nsightflow.diagnosis.marginal import marginal
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg

__all__ = ["closest_to_copy", "gap_bound", "ideal_gap", "reads"]

ON_MODEL = "per_launch_model"  # a row key: its ideal time is the family's model's

CLOSER_PCT = 5.0  # points of the copy bandwidth another size must be closer by
READ_ONLY = 0.95  # share of the DRAM bytes reads from which a stream is read-only
FIXED_SHOWN = 0.05  # us of fixed cost from which it is said (Jacobi-2D's is 0)


def closest_to_copy(
    row: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
) -> tuple[float, int]:
    """The variant's highest % of the copy bandwidth at another size, and that size.

    (NaN, 0) where no other size runs :data:`CLOSER_PCT` points closer than ``row``.
    """
    here = num(row, col.PCT_OF_COPY_BW)
    best, at = float("nan"), 0
    for other in rows:
        pct = num(other, col.PCT_OF_COPY_BW)
        if other.get(col.STATUS) != Status.OK or not ok(pct):
            continue
        if ok(here) and pct >= here + CLOSER_PCT and not (ok(best) and pct <= best):
            best, at = pct, int(other[col.SIZE])
    return best, at


def ideal_gap(
    fix: Mapping[str, Any],
    row: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    fixed: float,
) -> dict[str, Any]:
    """The remedy with its time above the ideal split into fixed cost and the rest."""
    gap = num(row, col.TIME_MEDIAN_US) - num(row, "roof_time_us")
    if not (ok(gap) and gap > 0 and ok(fixed)):
        return dict(fix)
    pct, n = closest_to_copy(row, rows)
    return msg(
        "advice_fix_ideal_gap" if fixed >= FIXED_SHOWN else "advice_fix_ideal_gap_none",
        fix=dict(fix),
        gap=gap,
        fixed=min(fixed, gap),
        rest=max(gap - fixed, 0.0),
        best=msg("advice_ideal_best", pct=pct, n=n) if n else "",
    )


def gap_bound(
    fix: Mapping[str, Any],
    row: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    fixed: float,
    mech: float,
) -> tuple[dict[str, Any], Bound | None]:
    """The remedy and bound of a launch at its ideal DRAM bytes (:func:`ideal_gap`).

    Where its stream's marginal rate is at or above the copy bandwidth, the time it
    does not explain is per launch: the remedy amortizes it and the floor is the
    ideal bytes at that rate, the gain ``time / floor``; None where that is within
    the noise. Elsewhere the split of :func:`ideal_gap` and the family's floor.
    """
    if row.get(ON_MODEL):  # the family's per-launch model is its floor already
        return ideal_gap(fix, row, rows, fixed), bounded(row, mech, fixed)
    line = marginal(row, rows)
    if line is None or not line.above or line.launch_us <= 0:
        return ideal_gap(fix, row, rows, fixed), bounded(row, mech, fixed)
    time = num(row, col.TIME_MEDIAN_US)
    lo, hi = sorted((line.size, line.other))
    text = msg(
        "advice_fix_per_launch",
        lo=lo,
        hi=hi,
        mb=line.extra_mb,
        us=line.extra_us,
        gbps=line.gbps,
        pct=100.0 * line.ratio,
        copy=line.ceiling_gbps,
        gap=time - num(row, "roof_time_us"),
        launch=line.launch_us,
        stream=line.stream_us,
        time=time,
        ideal=num(row, "ideal_bytes") / 1e6,
        reads=reads(row),
    )
    return text, bounded({**row, "roof_time_us": line.stream_us}, mech, 0.0)


def reads(row: Mapping[str, Any]) -> dict[str, Any] | str:
    """The share of the launch's DRAM bytes that are reads, as said ("": not profiled).

    A copy reads and writes as many bytes; reduction ``v4`` at 2^24 reads 67.1 of its
    69.5 MB (97%), vecadd 74%: a stream of more reads may beat the copy's rate.
    """
    read, write = num(row, "dram_read_bytes"), num(row, "dram_write_bytes")
    if not (ok(read) and ok(write) and read + write > 0):
        return ""
    share = read / (read + write)
    return msg(
        "stream_read_only" if share >= READ_ONLY else "stream_reads", pct=100 * share
    )
