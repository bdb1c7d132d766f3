"""Where a launch's time goes, and which factors changed it: the accounting the rules rank by.

ncu's stall ratios (``smsp__average_warps_issue_stalled_<reason>_per_issue_active
.ratio``, ``selected`` included) sum to the warp cycles spent per issued instruction
(CPI); with ``I`` issued warp instructions, ``W`` resident warps per SM (achieved
occupancy times the SM's warp slots), the SM clock ``f`` and the SM count ``S``, the
time the SMs were busy is about ``I x CPI / (W x S x f)``. On the bundled H200
recording this *active time* is 68-99% (median 94%) of ``gpu__time_duration.sum`` for
the 54 profiled launches with at least one wave of blocks per SM, and 47-48% for
SGEMM's 128x128-tile variants at n = 1024 (0.24 waves per SM); the rest is time SMs sat
idle (the launch ramping up, a last partial wave, a grid smaller than the GPU).

- A launch's time splits into each stall reason's share of the active time, plus the
  idle time (:func:`time_split`).
- A step's time change splits exactly into factors (:func:`step_terms`): with the
  warp-cycles each reason took, ``A_r = c_r x I`` (``selected`` is the issue cycle of
  each instruction), ``ln(t1/t0) = sum_r (A1_r - A0_r) / L + ln(W0/W1) + ln(f0/f1) +
  ln(idle factor)``, ``L`` the logarithmic mean of the two launches' total
  warp-cycles. Whole warp-cycles, not cycles per instruction: a step that adds cheap
  instructions dilutes every per-instruction stall without removing any waiting, and
  this split does not mistake that for a cause. Each term's ``exp(term) - 1`` is the
  change that factor alone would have made.

Pure functions over the analysis rows; a row holds its stall reasons as ``stall_<reason>``.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nsightflow.tools import ncu_metrics as M

STALL_PREFIX = "stall_"
# Stall reasons as issued by ncu, without "selected" (the issuing warp itself).
STALLS: tuple[str, ...] = tuple(r for r in M.STALL_REASONS if r != "selected")


def num(row: Mapping[str, Any], key: str) -> float:
    """A cell as a float; NaN when missing or not a number."""
    value = row.get(key)
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan
    return number


def ok(value: float) -> bool:
    """A measured number (not NaN, not infinite)."""
    return math.isfinite(value)


def stalls(row: Mapping[str, Any]) -> dict[str, float]:
    """The row's stall cycles per issued instruction, by reason (0 where absent)."""
    return {
        r: max(num(row, STALL_PREFIX + r), 0.0)
        if ok(num(row, STALL_PREFIX + r))
        else 0.0
        for r in STALLS
    }


@dataclass(frozen=True)
class Launch:
    """The factors of one profiled launch's time (ncu's own measurements)."""

    time_us: float  # gpu__time_duration.sum
    instructions: float  # smsp__inst_executed.sum
    cpi: float  # warp cycles per issued instruction (all stall reasons + selected)
    warps: float  # resident warps per SM (achieved occupancy x warp slots)
    clock_hz: float  # sm__cycles_elapsed.avg.per_second
    sms: float  # SM count
    stalls: Mapping[str, float]

    @property
    def active_us(self) -> float:
        """The time the SMs spent issuing and stalling, from the counts."""
        return (
            1e6 * self.instructions * self.cpi / (self.warps * self.sms * self.clock_hz)
        )

    @property
    def idle_factor(self) -> float:
        """Ncu's time over the active time (>= 1 when SMs sat idle part of it)."""
        return self.time_us / self.active_us


def launch(row: Mapping[str, Any]) -> Launch | None:
    """The launch factors of a profiled row, or None when one of them is missing."""
    parts = {
        "time_us": num(row, "ncu_time_us"),
        "instructions": num(row, "inst_executed"),
        "cpi": num(row, "cycles_per_issue"),
        "warps": num(row, "achieved_occupancy_pct")
        / 100
        * num(row, "max_warps_per_sm"),
        "clock_hz": num(row, "sm_hz"),
        "sms": num(row, "sm_count"),
    }
    if not all(ok(v) and v > 0 for v in parts.values()):
        return None
    return Launch(**parts, stalls=stalls(row))


def time_split(row: Mapping[str, Any]) -> dict[str, float] | None:
    """Microseconds of the launch per stall reason, ``selected`` and ``idle``.

    The active time is split by each reason's share of the CPI; ``idle`` is ncu's time
    beyond the active time (0 when the counts explain all of it). None when the row
    lacks a factor.
    """
    run = launch(row)
    if run is None:
        return None
    active = min(run.active_us, run.time_us)
    split = {r: active * c / run.cpi for r, c in run.stalls.items()}
    split["selected"] = active * max(run.cpi - sum(run.stalls.values()), 0.0) / run.cpi
    split["idle"] = max(run.time_us - run.active_us, 0.0)
    return split


def step_terms(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, float]:
    """The exact split of ``ln(t_after / t_before)`` (ncu's times) into factors.

    Keys: ``occupancy``, ``clock``, ``idle`` and one per stall reason with
    ``selected`` (the issue cycles, which also absorb what the reasons do not). Empty
    when a factor is missing.
    """
    a, b = launch(before), launch(after)
    if a is None or b is None:
        return {}
    terms = {
        "occupancy": math.log(a.warps / b.warps),
        "clock": math.log(a.clock_hz / b.clock_hz),
        "idle": math.log(b.idle_factor / a.idle_factor) + math.log(a.sms / b.sms),
    }
    total_a, total_b = a.cpi * a.instructions, b.cpi * b.instructions
    mean = _log_mean(total_a, total_b)
    for reason in STALLS:
        cycles_a = a.stalls[reason] * a.instructions
        cycles_b = b.stalls[reason] * b.instructions
        terms[reason] = (cycles_b - cycles_a) / mean
    rest = math.log(total_b / total_a) - sum(terms[r] for r in STALLS)
    terms["selected"] = rest  # the issue cycles (1 per instruction) and rounding
    return terms


def _log_mean(x: float, y: float) -> float:
    """Logarithmic mean: ``(y - x) / ln(y / x)``, ``x`` when they are equal."""
    if abs(y - x) < 1e-12 * max(x, y):
        return x
    return (y - x) / math.log(y / x)


def alone(term: float) -> float:
    """The relative time change (%) one factor alone makes: ``exp(term) - 1``."""
    return 100 * math.expm1(term)
