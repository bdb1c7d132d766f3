"""One verdict per step and per ranking, read against the timing noise (pure).

A step paid, did not pay, or changed nothing measurable; two variants are different
or tie. Both questions are asked of the event timing (median and interquartile range
of each variant at one size), so that every sentence about a step or a winner says
the same thing:

- a change is *no change* when the time moved less than :data:`SAME_PCT` or
  the time moved no more than the wider of the two interquartile ranges (the gain
  sits within the spread of one of the two runs);
- two variants *tie* on the same test.

Without timing (ncu only), the :data:`SAME_PCT` line alone decides.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok

SAME_PCT = 2.0  # a change under this share of the time is no change


def noise_us(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """The timing noise of a comparison: the wider interquartile range (0 if none)."""
    spreads = [num(r, col.TIME_IQR_US) for r in (a, b)]
    spreads = [s for s in spreads if ok(s) and s > 0]
    return max(spreads) if spreads else 0.0


def within_noise(t0: float, t1: float, noise: float) -> bool:
    """Whether ``t0 -> t1`` is below :data:`SAME_PCT` of ``t0`` or within ``noise``."""
    change = abs(t1 - t0)
    return change < SAME_PCT / 100 * t0 or change <= noise


def step_verdict(speedup: float, noise_pct: float = 0.0) -> str:
    """``paid``, ``not_paid`` or ``no_gain`` from a speedup and its noise.

    ``noise_pct``: the timing noise as a share of the earlier time (0: only the
    :data:`SAME_PCT` line decides). The change is the time's, ``t1 / t0 - 1`` (the
    number the sentences print), so that no printed change contradicts its verdict.
    """
    change = abs(1 / speedup - 1) * 100
    if change < SAME_PCT or change <= noise_pct:
        return "no_gain"
    return "paid" if speedup > 1 else "not_paid"


def outcome(a: Mapping[str, Any], b: Mapping[str, Any]) -> str:
    """The verdict of the step ``a -> b`` from their event timing (``""``: untimed)."""
    t0, t1 = num(a, col.TIME_MEDIAN_US), num(b, col.TIME_MEDIAN_US)
    if not (ok(t0) and ok(t1) and t0 > 0 and t1 > 0):
        return ""
    return step_verdict(t0 / t1, noise_pct(a, b))


def noise_pct(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """The noise of ``a -> b`` as a share of ``a``'s time (%; 0 without timing)."""
    t0 = num(a, col.TIME_MEDIAN_US)
    return 100 * noise_us(a, b) / t0 if ok(t0) and t0 > 0 else 0.0


def threshold_pct(a: Mapping[str, Any], b: Mapping[str, Any]) -> float:
    """The line ``a -> b`` must cross to be a change (%): 2%, or the noise if wider."""
    return max(SAME_PCT, noise_pct(a, b))


def ties(best: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The other variants whose time is within the noise of the best one's."""
    t0 = num(best, col.TIME_MEDIAN_US)
    return [
        str(r[col.VARIANT])
        for r in rows
        if r[col.VARIANT] != best[col.VARIANT]
        and within_noise(t0, num(r, col.TIME_MEDIAN_US), noise_us(best, r))
    ]
