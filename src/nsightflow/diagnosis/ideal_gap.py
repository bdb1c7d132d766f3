"""What is left of a launch whose DRAM traffic is already the ideal bytes (pure).

Its time above the ideal time at the copy bandwidth is split by what the family
measured: at most the family's fixed cost per launch, and the rest its DRAM stream
running below the copy bandwidth. Where the same variant runs closer to the copy
bandwidth at another size, that size is named: reduction ``v4`` at 2^24 is 3.9 us above
its 15.9 us ideal time, of which the family's fixed cost is 0.4 us, and it reaches 99%
of the copy bandwidth at 2^26; calling the 3.9 us "per launch" contradicted its own
floor.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg

__all__ = ["closest_to_copy", "ideal_gap"]

CLOSER_PCT = 5.0  # points of the copy bandwidth another size must be closer by
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
