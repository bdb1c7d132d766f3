"""What another input did to the same code: one source, two inputs (pure).

A variant that runs its predecessor's source on another input (histogram v3: v0's
kernel on the skewed bytes) is no code step: its section says what the input changed,
from the counters of both launches: the time, the L2's atomic sectors and their rate,
and where both launches are limited by one L2 slice, that slice's share under each.
"""

from collections.abc import Callable, Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis import limiter
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg


def same_code(
    variants: Mapping[str, Mapping[str, Any]],
    step: tuple[str, str],
    row: Callable[[str, int], Mapping[str, Any]],
    n: int,
) -> dict[str, Any] | str:
    """What the other input did to the same source, from the counters, or ''.

    ``step`` is (variant, predecessor), ``row`` the analysis row of a variant at a
    size. Histogram v0 -> v3 (90% of the bytes in 4 bins): +4% time, 17.8 M -> 10.3 M
    L2 atomic sectors, each slower: the skew the idea expects to serialize the
    atomics costs 4%. The sectors are said where they fell (the sentence says so).
    """
    name, before = step
    if variants[name].get(col.SOURCE) != variants[before].get(col.SOURCE):
        return ""
    a, b = row(before, n), row(name, n)
    t0, t1 = num(a, col.TIME_MEDIAN_US), num(b, col.TIME_MEDIAN_US)
    if not (ok(t0) and ok(t1) and t0 > 0):
        return ""
    s0, s1 = num(a, "l2_atomic_sectors"), num(b, "l2_atomic_sectors")
    atomics = (
        msg("same_code_atomics", s0=s0 / 1e6, s1=s1 / 1e6, r0=s0 / t0, r1=s1 / t1)
        if ok(s0) and ok(s1) and s1 < s0
        else ""
    )
    return msg(
        "same_code",
        t0=t0,
        t1=t1,
        pct=100 * (t1 / t0 - 1),
        atomics=atomics,
        slice=_same_slice(a, b),
    )


def _same_slice(a: Mapping[str, Any], b: Mapping[str, Any]) -> dict[str, Any] | str:
    """The busiest L2 slice under both inputs, where it limits both, or ''.

    Histogram v0 -> v3: 33% and 59% of the atomic sectors on one of 94 slices, the
    slice 80% and 85% busy: the 1 KB of counts lives in a few L2 lines under the
    uniform input too, so the skew has little left to serialize (+4%).
    """
    slices = num(a, "l2_slices")
    if limiter.hot_slice(a) is None or limiter.hot_slice(b) is None:
        return ""
    if not (ok(slices) and slices > 0):
        return ""
    h0, t0 = num(a, "l2_atomic_sectors_max"), num(a, "l2_atomic_sectors")
    h1, t1 = num(b, "l2_atomic_sectors_max"), num(b, "l2_atomic_sectors")
    return msg(
        "same_code_slice",
        h0=100 * h0 / t0,
        h1=100 * h1 / t1,
        p0=num(a, "l2_slice_max_pct"),
        p1=num(b, "l2_slice_max_pct"),
        slices=slices,
        even=100 / slices,
    )
