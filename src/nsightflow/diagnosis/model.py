"""Where a launch's time goes: the accounting the rules rank by.

ncu's stall ratios (``smsp__average_warps_issue_stalled_<reason>_per_issue_active
.ratio``, ``selected`` included) sum to the warp cycles spent per issued instruction
(CPI); with ``I`` issued warp instructions, ``W`` resident warps per SM (achieved
occupancy times the SM's warp slots), the SM clock ``f`` and the SM count ``S``, the
time the SMs were busy is about ``I x CPI / (W x S x f)``. On the bundled H200
recording this *active time* is 68-99% (median 94%) of ``gpu__time_duration.sum`` for
the 54 profiled launches with at least one wave of blocks per SM, and 47-48% for
SGEMM's 128x128-tile variants at n = 1024 (0.24 waves per SM); the rest is time SMs sat
idle (the launch ramping up, a last partial wave, a grid smaller than the GPU).

A launch's time splits into each stall reason's share of the active time, plus the
idle time (:func:`time_split`). The waits on global memory (:data:`NS_FIXED`) last a
time, not a number of SM cycles: :func:`at_clock_of` counts them at another launch's
clock. How a step between two launches changed the time, factor by factor, is
:mod:`nsightflow.diagnosis.step_split`'s.

Pure functions over the analysis rows; a row holds its stall reasons as ``stall_<reason>``.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
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


def records(frame: Any) -> list[dict[str, Any]]:
    """A data frame's rows as dicts keyed by column name (a str)."""
    return [{str(k): v for k, v in r.items()} for r in frame.to_dict("records")]


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


# Waits whose length is fixed in time, not in SM cycles: global memory (L2, DRAM and
# the fabric between run on their own clocks), its queue and the stores' drain.
NS_FIXED: tuple[str, ...] = ("long_scoreboard", "lg_throttle", "drain")


def at_clock_of(run: Launch, clock_hz: float) -> Launch:
    """``run`` with its memory waits (:data:`NS_FIXED`) in cycles of ``clock_hz``.

    ncu counts every stall in SM cycles, so a run at a higher SM clock waits more
    cycles for the same memory latency. Expressed at the other run's clock, a step
    whose two profiles ran at different clocks (``--clock-control none``) shows the
    clock only where cycles set the time, and no memory wait that changed with the
    clock alone. Only the stalls and the CPI change (its ``active_us`` no longer holds:
    :func:`~nsightflow.diagnosis.step_split.step_terms` gives the difference to its
    ``clock`` term).
    """
    scale = clock_hz / run.clock_hz
    moved = {r: c * scale if r in NS_FIXED else c for r, c in run.stalls.items()}
    cpi = run.cpi + sum(moved.values()) - sum(run.stalls.values())
    return replace(run, cpi=cpi, stalls=moved)
