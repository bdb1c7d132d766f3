"""What a finding's numbers measure: the quantity, its unit and how a value is written.

A step's finding (``findings.csv``) records the ``metric`` it read and the values
``before`` / ``after``; the metric is an ncu name or a derived expression such as
``(smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio) x
smsp__inst_executed.sum``, whose recorded values are stall cycles per issued
instruction (per load request where the expression divides by the requests; see
:func:`nsightflow.diagnosis.factors.detail`). A figure names the quantity in words,
with its unit, and never shows the raw metric name as its label: it would be the
wrong quantity (an occupancy label over a stall count) or lose its underscores.
"""

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.credit import LOCAL_METRIC
from nsightflow.diagnosis.factors import REQUEST_METRICS
from nsightflow.plot.style import bytes_text, count_text, time_text

STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+?)_per_issue_active")
PER_INSTRUCTION = " x smsp__inst_executed.sum"
OCCUPANCY = "sm__warps_active.avg.pct_of_peak_sustained_active"


@dataclass(frozen=True)
class Quantity:
    """One measured quantity as a figure shows it.

    Attributes:
        label: The quantity in words, with its unit in brackets where it has one
            (an axis label).
        short: A short name for a row or tick (at most about 30 characters).
        text: A value written with its unit.
        tick: A tick's value, where the unit is in the label already (else ``text``).
    """

    label: str
    short: str
    text: Callable[[float], str]
    tick: Callable[[float], str] | None = None

    def tick_text(self, value: float) -> str:
        """A tick's value."""
        return (self.tick or self.text)(value)


def _num(value: float) -> str:
    if not math.isfinite(value):
        return "n/a"
    return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"


def _pct(value: float) -> str:
    return f"{value:.1f}%" if math.isfinite(value) else "n/a"


def _stall_quantity(metric: str) -> Quantity:
    """Warp stall cycles of the reasons in ``metric``, per instruction or request."""
    reasons = " + ".join(STALL.findall(metric)) or "stall"
    per = metric.split(PER_INSTRUCTION, 1)[1].strip()
    if per.startswith("/"):
        what = "load/store request" if "+" in per else "load request"
    else:
        what = "issued instruction"
    return Quantity(
        f"{reasons} stall cycles per {what}",
        f"{reasons} stalls / {'request' if per else 'instruction'}",
        lambda v: f"{_num(v)} cycles",
        _num,
    )


FIXED: dict[str, Quantity] = {
    OCCUPANCY: Quantity(
        "achieved occupancy [% of the SM's warp slots]", "achieved occupancy", _pct
    ),
    "smsp__inst_executed.sum": Quantity(
        "issued warp instructions", "issued warp instructions", count_text
    ),
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": Quantity(
        "global load requests", "global load requests", count_text
    ),
    "smsp__thread_inst_executed_per_inst_executed.ratio": Quantity(
        "active threads per warp instruction [of 32]",
        "active threads / instruction",
        _num,
    ),
    "sm__cycles_elapsed.avg.per_second": Quantity(
        "SM clock [GHz]", "SM clock", lambda v: f"{v / 1e9:.3g} GHz"
    ),
    "dram__bytes_read.sum + dram__bytes_write.sum": Quantity(
        "DRAM bytes read + written", "DRAM bytes", bytes_text
    ),
    "gpu__time_duration.sum": Quantity(
        "kernel time (ncu)", "kernel time (ncu)", time_text
    ),
    LOCAL_METRIC: Quantity("local load and store sectors", "local sectors", count_text),
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": Quantity(
        "global store sectors", "global store sectors", count_text
    ),
    col.TIME_MEDIAN_US: Quantity(
        "median kernel time (CUDA events)", "median time (events)", time_text
    ),
    "idle share of gpu__time_duration.sum": Quantity(
        "SM idle time [% of the kernel's time]", "SM idle time", _pct
    ),
}


def stall_value(metric: str, cycles: dict[str, float], row: Any) -> float:
    """A stall metric's value from a launch's stall cycles per issued instruction.

    Args:
        metric: A finding's stall metric (see the module).
        cycles: Reason -> warp stall cycles per issued instruction (``stalls.csv``).
        row: The launch's analysis row (``inst_executed``, ``global_ld_requests``,
            ``global_st_requests``), for the metrics per request.

    Returns:
        The same value :func:`nsightflow.diagnosis.factors.detail` records; NaN
        where the launch has no stall samples or no requests.
    """
    if not cycles:
        return math.nan
    # "selected" is the issue itself: one cycle per issued instruction
    reasons = STALL.findall(metric)
    total = sum(1.0 if r == "selected" else cycles.get(r, 0.0) for r in reasons)
    per = metric.split(PER_INSTRUCTION, 1)[1].strip()
    if not per.startswith("/"):
        return total
    column = {metric: column for column, metric in REQUEST_METRICS.items()}
    # "/ a" or "/ (a + b)": the requests the waits are counted over
    names = [m.strip() for m in per.removeprefix("/").strip(" ()").split("+")]
    requests = sum(float(row.get(column.get(m, m), math.nan)) for m in names)
    inst = float(row.get("inst_executed", math.nan))
    return total * inst / requests if requests > 0 else math.nan


def is_stall(metric: str) -> bool:
    """Whether ``metric`` is stall cycles of some reasons (per instruction or request)."""
    return PER_INSTRUCTION in metric and STALL.search(metric) is not None


def metric_quantity(metric: str) -> Quantity | None:
    """The quantity a finding's ``metric`` stands for; None where it is no number."""
    if metric in FIXED:
        return FIXED[metric]
    if is_stall(metric):
        return _stall_quantity(metric)
    return None
