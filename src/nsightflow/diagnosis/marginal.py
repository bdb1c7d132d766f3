"""A variant's marginal DRAM rate between two memory-bound sizes, and its intercept (pure).

The ideal time at the copy bandwidth is a ceiling only where the stream cannot beat
it. Between two sizes where the variant is memory-bound, its extra ideal bytes over
its extra time is the rate its stream runs at once the launch is under way; where
that rate is at or above the copy bandwidth (a read-only stream is not bound by a
copy's read plus write), the time above the ideal is not the stream running slow but
a cost paid once per launch: the intercept of that line, ``time - bytes / rate``.
Reduction ``v4`` on the H200: 2^24 -> 2^26 moves 201.3 MB more in 44.3 us more,
4,543 GB/s against a copy bandwidth of 4,215 GB/s, so of its 19.8 us at 2^24 about
5.0 us is per launch and 14.8 us the stream, where the copy bandwidth's split said
"at most 0.4 us per launch, 3.4 us the stream below the copy bandwidth".
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok

__all__ = ["Marginal", "marginal"]

IDEAL = "ideal_bytes"  # the analysis column of the ideal DRAM bytes
AT_CEILING = 1.0  # marginal rate over the ceiling's from which the gap is per launch


@dataclass(frozen=True)
class Marginal:
    """The marginal rate between ``size`` and ``other`` and the intercept at ``size``."""

    size: int
    other: int
    ratio: float  # the marginal rate over the copy bandwidth
    gbps: float  # the marginal rate, GB/s
    ceiling_gbps: float  # the copy bandwidth, GB/s
    extra_mb: float  # the extra ideal bytes between the sizes, MB
    extra_us: float  # the extra time between the sizes, us
    launch_us: float  # the intercept: the time at ``size`` the stream does not explain
    stream_us: float  # the ideal bytes at ``size`` over the marginal rate

    @property
    def above(self) -> bool:
        """The stream runs at or above the ceiling between the two sizes."""
        return self.ratio >= AT_CEILING


def _memory_bound(row: Mapping[str, Any]) -> bool:
    """A correct timed launch whose regime is memory with an ideal time and bytes."""
    return (
        row.get(col.STATUS) == Status.OK
        and row.get(col.REGIME) == "memory"
        and all(
            ok(num(row, k)) and num(row, k) > 0
            for k in (col.TIME_MEDIAN_US, "roof_time_us", IDEAL)
        )
    )


def marginal(
    row: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]
) -> Marginal | None:
    """The marginal rate of ``row``'s variant against its farthest memory-bound size.

    ``rows`` are the variant's rows at every size; None where ``row`` or every other
    size is not memory-bound, or the time or bytes do not grow with the size.
    """
    if not _memory_bound(row):
        return None
    here = int(row[col.SIZE])
    others = [r for r in rows if _memory_bound(r) and int(r[col.SIZE]) != here]
    if not others:
        return None
    far = max(others, key=lambda r: abs(num(r, IDEAL) - num(row, IDEAL)))
    lo, hi = sorted((row, far), key=lambda r: num(r, IDEAL))
    d_ideal = num(hi, "roof_time_us") - num(lo, "roof_time_us")
    d_time = num(hi, col.TIME_MEDIAN_US) - num(lo, col.TIME_MEDIAN_US)
    d_bytes = num(hi, IDEAL) - num(lo, IDEAL)
    if not (d_ideal > 0 and d_time > 0 and d_bytes > 0):
        return None
    ratio = d_ideal / d_time
    stream = num(row, "roof_time_us") / ratio
    return Marginal(
        size=here,
        other=int(far[col.SIZE]),
        ratio=ratio,
        gbps=d_bytes / d_time / 1e3,
        ceiling_gbps=num(row, IDEAL) / num(row, "roof_time_us") / 1e3,
        extra_mb=d_bytes / 1e6,
        extra_us=d_time,
        launch_us=num(row, col.TIME_MEDIAN_US) - stream,
        stream_us=stream,
    )
