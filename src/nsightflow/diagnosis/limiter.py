"""What limits a variant now: the ceiling or resource it runs closest to (pure).

This is not what a step changed (:mod:`nsightflow.diagnosis.account`): a step can
save time through fewer instructions and leave the kernel as close to its L1 as
before. ncu gives each unit's throughput as a share of its peak; the closest is the
limiter, with its share:

- *DRAM* (``dram__throughput``), *L2* (``lts__throughput``), *L1/shared*
  (``l1tex__throughput``: shared memory and L1 share the unit), the *issue slots*
  (``sm__inst_issued``), a *math pipe* (FMA, ALU, FP64, XU, LSU, tensor, where
  recorded);
- where none of them reaches :data:`BOUND_PCT` (ncu SpeedOfLight's 60% line), the
  launch waits on *latency*: and where its grid has less than one wave of blocks per
  SM, the *grid is too small* to fill the GPU;
- a variant ncu did not profile (a library call) is placed by its timing only: its
  share of its regime's ceiling (copy bandwidth, FP32 peak or cuBLAS).
"""

from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as column_names
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg

BOUND_PCT = 60.0  # a unit this busy limits the launch
# (kind, analysis column, ncu metric) of each unit with a throughput share
UNITS: tuple[tuple[str, str, str], ...] = (
    ("dram", "dram_throughput_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("l2", "l2_throughput_pct", "lts__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("l1", "l1_throughput_pct", "l1tex__throughput.avg.pct_of_peak_sustained_active"),
    ("issue", "issue_pct", "sm__inst_issued.avg.pct_of_peak_sustained_active"),
    ("fma", "fma_pct", "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"),
    ("alu", "pipe_alu_pct", "sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_active"),
    ("fp64", "pipe_fp64_pct", "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_active"),
    ("xu", "pipe_xu_pct", "sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active"),
    ("lsu", "pipe_lsu_pct", "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active"),
    ("tensor", "pipe_tensor_pct", "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"),
)  # fmt: skip


def closest(row: Mapping[str, Any]) -> tuple[str, float, str] | None:
    """The unit with the highest throughput share: (kind, %, metric), or None."""
    found = [(k, num(row, col), m) for k, col, m in UNITS if ok(num(row, col))]
    if not found:
        return None
    return max(found, key=lambda u: u[1])


def limit(row: Mapping[str, Any]) -> Finding | None:
    """What limits the variant at this size now (None without any measure of it)."""
    if not row.get("profiled"):
        pct = num(row, column_names.REGIME_CEILING_PCT)
        ceiling = str(row.get(column_names.REGIME_CEILING) or "")
        if not ok(pct) or not ceiling:
            return None
        return Finding(
            "limit_timing",
            params={"pct": pct, "ceiling": msg(f"ceiling_short_{ceiling}")},
            metric=column_names.REGIME_CEILING_PCT,
            value=pct,
        )
    top = closest(row)
    if top is None:
        return None
    kind, pct, metric = top
    if pct >= BOUND_PCT:
        return Finding(
            f"limit_{kind}",
            params={"pct": pct},
            metric=metric,
            value=pct,
            threshold=BOUND_PCT,
        )
    waves, blocks = num(row, "waves_per_sm"), num(row, "grid_blocks")
    sms = num(row, "sm_count")
    if ok(waves) and 0 < waves < 1 and ok(blocks) and ok(sms):
        return Finding(
            "limit_grid",
            params={"blocks": blocks, "sms": sms, column_names.KIND: msg(f"unit_{kind}"), "pct": pct},
            metric="launch__waves_per_multiprocessor",
            value=waves,
            threshold=1.0,
        )  # fmt: skip
    return Finding(
        "limit_latency",
        params={column_names.KIND: msg(f"unit_{kind}"), "pct": pct},
        metric=metric,
        value=pct,
        threshold=BOUND_PCT,
    )
