"""What limits a variant now: the ceiling or resource it runs closest to (pure).

This is not what a step changed (:mod:`nsightflow.diagnosis.account`): a step can
save time through fewer instructions and leave the kernel as close to its L1 as
before. ncu gives each unit's throughput as a share of its peak; the closest is the
limiter, with its share:

- *DRAM* (``dram__throughput``), *L2* (``lts__throughput``), *L1/shared*
  (``l1tex__throughput``: shared memory and L1 share the unit), the *issue slots*
  (``sm__inst_issued``), a *math pipe* (FMA, ALU, FP64, XU, LSU, tensor, where
  recorded);
- *the L2 slice of its atomics* where they concentrate there (:func:`hot_slice`):
  the slice that holds a hot address runs its atomics one after another while the
  L2 on average idles (aggatomic's busiest slice at 83% against 5.2% for the L2),
  named before the units above when busier;
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


HOT_TRAFFIC = (
    0.5  # of the busiest slice's sectors that are atomics: the slice is theirs
)
HOT_OVER_AVG = 3.0  # the busiest slice at least this many times the L2's average


def hot_slice(row: Mapping[str, Any]) -> Finding | None:
    """The L2 slice a launch's atomics concentrate on, where it is its busiest unit.

    Where atomics are at least :data:`HOT_TRAFFIC` of the busiest slice's sectors
    (``lts__t_sectors_op_{red,atom}.max`` against ``lts__t_sectors.max``) and that
    slice runs at :data:`HOT_OVER_AVG` times the L2's average throughput or more
    (``lts__throughput.max`` / ``.avg``): the atomics on its addresses execute one
    after another there, whatever the L2 as a whole does. On the H200: aggatomic's
    524,288 of 787,136 sectors on one of 94 slices, 83% busy against 5.2%;
    hotatomic's float atomics 4.19 M of 6.29 M, 47% against 0.9%; histogram v0's
    256 bins 5.93 M of 17.8 M, 80% against 2.4%. Its privatized v1 (16,896 of the
    slice's 25,662 sectors, 32% against 14%) is not.
    """
    hot, total = num(row, "l2_atomic_sectors_max"), num(row, "l2_atomic_sectors")
    pct, avg = num(row, "l2_slice_max_pct"), num(row, "l2_throughput_pct")
    slice_sectors = num(row, "l2_sectors_max")
    if not all(ok(v) and v > 0 for v in (hot, total, pct, avg, slice_sectors)):
        return None
    if pct < HOT_OVER_AVG * avg or hot < HOT_TRAFFIC * slice_sectors:
        return None
    slices = num(row, "l2_slices")
    return Finding(
        "limit_l2_slice",
        params={
            "pct": pct,
            "avg": avg,
            "hot": hot,
            "all": total,
            "slices": slices if ok(slices) else 0.0,
        },
        metric="lts__throughput.max.pct_of_peak_sustained_elapsed",
        value=pct,
        threshold=HOT_OVER_AVG * avg,
    )


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
    atomics = hot_slice(row)
    if atomics is not None and atomics.value > pct:
        return atomics
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
