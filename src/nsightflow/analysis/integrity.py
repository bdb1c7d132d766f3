"""Numbers that guard themselves: integrity checks of each timed variant and size.

Pure pandas over the analysis table (and the timing rows behind it); the analyze stage
applies them and writes ``integrity.csv`` (the columns of ``findings.csv``), and the
report's measurement-checks part shows them.

- ``faster_than_floor``: the events' median is below the family's own floor, the ideal
  bytes at the measured copy bandwidth or the ideal FLOPs at the measured FP32 peak
  (ceilings.json), by more than :data:`FLOOR_SLACK`. The bundled H200 recording's
  fastest kernel reaches 101.1% of the copy bandwidth (the measured copy is a
  cuMemcpyDtoD, not the best possible kernel), none over 80% of the FP32 peak; 105%
  is beyond what the measured ceilings allow. Such a time measures less work than the
  family's (a skipped loop, a wrong ideal formula, inputs served from the L2): the
  row's status becomes ``faster_than_floor``, which keeps it out of the ranking, with
  the reason as its message.
- ``changed_after_timing``: the timing worker launches the variant once before its
  warm-up and once after the last timed repetition, each from the initial fill of its
  outputs, and compares the two copies (``verified_after`` of a timing row, made by
  :func:`recheck_record`). Outputs that differ beyond the family's tolerance mean the
  kernel timed is not the one verified (state kept between launches, a race that
  shows under repetition): status ``changed_after_timing``, out of the ranking.
- ``event_ncu_disagree``: ncu's ``gpu__time_duration`` of its launch and the events'
  median differ by more than their noise: :data:`NOISE_IQRS` x the events' IQR, plus
  :data:`EVENT_OVERHEAD_US` (the events' pair spans launch gaps ncu does not count:
  ncu was 3.4 us shorter at the median of the recording's 59 profiled sizes), plus
  :data:`NOISE_REL` of the median (ncu replays with caches flushed). Flagged, kept.
- The GPU's state before and after each timing run (NVML: SM and memory clocks,
  clock-event reasons, other processes), summarised per family by :func:`gpu_state`.
"""

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from nsightflow.contracts import columns as col
from nsightflow.records import Status

if TYPE_CHECKING:  # pandas is imported where a table is built: the timing worker
    import pandas as pd  # imports this module for recheck_record only

FLOOR_SLACK = 1.05  # a rate over 105% of a measured ceiling is not a measurement
NOISE_IQRS = 3.0  # the events' IQR times this ...
EVENT_OVERHEAD_US = 5.0  # ... plus the launch gaps an event pair spans ...
NOISE_REL = 0.01  # ... plus this share of the median: ncu vs events within noise
FASTER = str(Status.FASTER_THAN_FLOOR)
CHANGED = str(Status.CHANGED_AFTER_TIMING)
DISAGREE = "event_ncu_disagree"
# NVML clock-event reasons (nvml.h, nvmlClocksEventReason*), by bit
REASONS = {
    0x1: "gpu_idle",
    0x2: "applications_clocks_setting",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal_slowdown",
    0x40: "hw_thermal_slowdown",
    0x80: "hw_power_brake_slowdown",
    0x100: "display_clock_setting",
}
FINDING_COLUMNS = [
    col.FAMILY,
    col.VARIANT,
    col.SIZE,
    col.STEP_OF,
    col.REGIME,
    col.RULE,
    col.ROLE,
    col.METRIC,
    col.VALUE,
    col.THRESHOLD,
    col.MESSAGE,
]


def _num(value: Any) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return math.nan
    return out


def floor_us(row: Mapping[str, Any], ceilings: Mapping[str, Any]) -> tuple[float, str]:
    """The family's floor at this row: (time in us, which ceiling), or (NaN, "").

    The floor is the longer of ideal bytes at the copy bandwidth and ideal FLOPs at
    the FP32 peak; the achieved rates (``gbps``, ``gflops``: ideal work over the
    median) give it without the formulas: floor = median x rate / ceiling.
    """
    t = _num(row.get(col.TIME_MEDIAN_US))
    best, which = math.nan, ""
    for rate, ceiling, name in (
        (col.GBPS, col.COPY_GBPS, "bytes at the measured copy bandwidth"),
        (col.GFLOPS, col.FP32_GFLOPS, "FLOPs at the measured FP32 peak"),
    ):
        r, c = _num(row.get(rate)), _num(ceilings.get(ceiling))
        if math.isfinite(t * r * c) and c > 0 and r > 0:
            f = t * r / c
            if not math.isfinite(best) or f > best:
                best, which = f, name
    return best, which


def below_floor(
    frame: "pd.DataFrame", ceilings: Mapping[str, Any]
) -> dict[int, tuple[float, str]]:
    """Timed rows (status ok) faster than their floor / FLOOR_SLACK: index -> floor."""
    found = {}
    for i, row in frame[frame[col.STATUS] == Status.OK].iterrows():
        floor, which = floor_us({str(k): v for k, v in row.items()}, ceilings)
        if math.isfinite(floor) and _num(row[col.TIME_MEDIAN_US]) * FLOOR_SLACK < floor:
            found[int(i)] = (floor, which)  # type: ignore[call-overload]
    return found


def recheck_record(per_output: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """``verified_after`` of a timing row from each output's comparison.

    Args:
        per_output: output name -> :func:`nsightflow.gpu.verify.compare` (or
            ``compare_exact``) of the copy after timing against the copy before.
    """
    if not per_output:
        return {
            col.STATUS: str(Status.NOT_CHECKED),
            col.MESSAGE: "no output to compare",
        }
    bad = {k: r for k, r in per_output.items() if not r.get("ok")}
    errors = [_num(r.get(col.REL_L2_ERROR)) for r in per_output.values()]
    worst = max((e for e in errors if math.isfinite(e)), default=None)
    if not bad:
        return {col.STATUS: str(Status.OK), col.REL_L2_ERROR: worst, col.MESSAGE: ""}
    name, r = next(iter(bad.items()))
    return {
        col.STATUS: CHANGED,
        col.REL_L2_ERROR: worst,
        col.MESSAGE: f"output {name} after the timed repetitions differs from the one "
        f"before them: relative L2 error {_num(r.get('rel_l2_error')):.3g}, first "
        f"mismatch {r.get('first_mismatch')}",
    }


def apply(frame: "pd.DataFrame", ceilings: Mapping[str, Any]) -> "pd.DataFrame":
    """The analysis table with ``faster_than_floor`` / ``changed_after_timing`` rows.

    Returns the frame itself when nothing is flagged (the caller then keeps its
    derived columns); else a copy whose flagged rows carry the status and reason.
    """
    changed = frame.index[
        (frame[col.STATUS] == Status.OK) & (frame.get(col.RECHECK_STATUS) == CHANGED)
    ]
    fast = below_floor(frame, ceilings)
    if len(changed) == 0 and not fast:
        return frame
    out = frame.copy()
    for i in changed:
        out.loc[i, [col.STATUS, col.MESSAGE]] = [
            CHANGED,
            str(out.loc[i, col.RECHECK_MESSAGE]),
        ]
    for i, (floor, which) in fast.items():
        if i in changed:
            continue
        t = _num(out.loc[i, col.TIME_MEDIAN_US])
        out.loc[i, [col.STATUS, col.MESSAGE]] = [
            FASTER,
            f"median {t:.3g} us is {floor / t:.2f}x faster than the family's floor "
            f"{floor:.3g} us (ideal {which}): not a measurement of the family's work",
        ]
    return out


def event_ncu(frame: "pd.DataFrame") -> "pd.DataFrame":
    """Profiled rows whose ncu time and event median differ beyond their noise."""
    rows = frame[(frame[col.STATUS] == Status.OK) & frame["ncu_time_us"].notna()].copy()
    if rows.empty:
        return rows
    diff = (rows["ncu_time_us"] - rows[col.TIME_MEDIAN_US]).abs()
    noise = (
        NOISE_IQRS * rows[col.TIME_IQR_US].fillna(0)
        + EVENT_OVERHEAD_US
        + NOISE_REL * rows[col.TIME_MEDIAN_US]
    )
    return rows.assign(diff_us=diff, noise_us=noise)[diff > noise]


def reasons_text(mask: Any) -> str:
    """NVML clock-event reasons of a bit mask, by name ("none" for 0)."""
    m = int(_num(mask)) if math.isfinite(_num(mask)) else 0
    names = [name for bit, name in REASONS.items() if m & bit]
    return ", ".join(names) if names else "none"


def gpu_state(frame: "pd.DataFrame") -> dict[str, Any] | None:
    """The GPU's state over the family's timing runs (NVML before and after), or None.

    Returns:
        ``runs``, ``sm_mhz`` and ``mem_mhz`` (min, max over before and after),
        ``sm_drop_mhz`` (the largest fall of the SM clock during one run),
        ``reasons`` (the union of clock-event reasons) and ``other_processes`` (the
        most seen at once).
    """
    cols = (col.SM_CLOCK_MHZ_BEFORE, col.SM_CLOCK_MHZ_AFTER)
    if not set(cols) <= set(frame.columns):
        return None
    timed = frame[frame[cols[0]].notna() & frame[cols[1]].notna()]
    if timed.empty:
        return None
    sm = timed[list(cols)].astype(float)
    mem = timed[[col.MEM_CLOCK_MHZ_BEFORE, col.MEM_CLOCK_MHZ_AFTER]].astype(float)
    mask = 0
    for value in timed[col.THROTTLE_REASONS].dropna():
        mask |= int(value)
    return {
        "runs": len(timed),
        "sm_mhz": (float(np.nanmin(sm.values)), float(np.nanmax(sm.values))),
        "mem_mhz": (float(np.nanmin(mem.values)), float(np.nanmax(mem.values))),
        "sm_drop_mhz": float((sm[cols[0]] - sm[cols[1]]).clip(lower=0).max()),
        "reasons": reasons_text(mask),
        col.OTHER_PROCESSES: int(timed[col.OTHER_PROCESSES].fillna(0).max()),
    }


def findings(frame: "pd.DataFrame") -> "pd.DataFrame":
    """The integrity findings as records (the columns of ``findings.csv``)."""
    rows = []
    for status in (FASTER, CHANGED):
        for _, r in frame[frame[col.STATUS] == status].iterrows():
            rows.append(_finding(r, status, col.TIME_MEDIAN_US, r[col.TIME_MEDIAN_US]))
    for _, r in event_ncu(frame).iterrows():
        found = _finding(r, DISAGREE, "ncu_time_us", r["ncu_time_us"])
        found[col.THRESHOLD] = r["noise_us"]
        found[col.MESSAGE] = (
            f"ncu {r['ncu_time_us']:.4g} us vs events {r['time_median_us']:.4g} us: "
            f"{r['diff_us']:.3g} us apart, noise {r['noise_us']:.3g} us"
        )
        rows.append(found)
    import pandas as pd

    return pd.DataFrame(rows, columns=FINDING_COLUMNS)


def _finding(r: "pd.Series", rule: str, metric: str, value: Any) -> dict[str, Any]:
    return {
        col.FAMILY: r[col.FAMILY],
        col.VARIANT: r[col.VARIANT],
        col.SIZE: int(r[col.SIZE]),
        col.STEP_OF: "",
        col.REGIME: r.get(col.REGIME, ""),
        col.RULE: rule,
        col.ROLE: "info",
        col.METRIC: metric,
        col.VALUE: value,
        col.THRESHOLD: FLOOR_SLACK if rule == FASTER else None,
        col.MESSAGE: r.get(col.MESSAGE, ""),
    }
