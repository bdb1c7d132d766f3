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
  L2 on average idles (histogram ``v0``'s busiest slice at 80% against 2.4% for the
  L2), named before the units above when busier;
- a run of several launches: its longest launch's limiter, named (:func:`run_limit`);
- where none of them reaches :data:`BOUND_PCT` (ncu SpeedOfLight's 60% line), the
  launch waits on *latency*: and where its grid has less than one wave of blocks per
  SM, the *grid is too small* to fill the GPU;
- a variant ncu did not profile (a library call) is placed by its timing only: its
  share of its regime's ceiling (copy bandwidth, FP32 peak or cuBLAS).
"""

from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts import columns as column_names
from nsightflow.diagnosis import serial
from nsightflow.diagnosis.launch_state import busy_sm_share
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg

BOUND_PCT = 60.0  # a unit this busy limits the launch
ACTIVE = "sustained_active"  # a metric's share over the active SMs' cycles only
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


def closest(row: Mapping[str, Any], busy: float = 1.0) -> tuple[str, float, str] | None:
    """The unit with the highest throughput share: (kind, %, metric), or None.

    ``busy``: the share of the SMs holding a block (:func:`busy_sm_share`); a share
    over the active SMs' cycles (``pct_of_peak_sustained_active``) is ranked times it,
    as the GPU's, and returned as ncu gives it.
    """
    found = [(k, num(row, col), m) for k, col, m in UNITS if ok(num(row, col))]
    if not found:
        return None
    return max(found, key=lambda u: u[1] * (busy if ACTIVE in u[2] else 1.0))


def hot_slice(row: Mapping[str, Any]) -> Finding | None:
    """The L2 slice a launch's atomics concentrate on, where it limits the launch.

    The slice is its atomics' (most of its sectors) and either keeps them busy by
    ncu's counters (:func:`nsightflow.diagnosis.serial.saturated`: histogram ``v0``'s
    256 bins, the slice 80% busy) or needs, at the rate the family's saturating
    launches reached there, :data:`~nsightflow.diagnosis.serial.SERIAL_PCT` of the
    launch (:func:`~nsightflow.diagnosis.serial.serialized`): hotatomic's one atomic
    per block, 3% of its L2 sectors, takes 92% of ``v2``'s launch at ``v0``'s 570
    sectors per us. Its value is that share of the family's rate where the family has
    one, as every unit's is a share of its peak: the 60% line is the same for all.
    Histogram's privatized ``v1`` merges 16,896 sectors on its busiest slice, 36% of
    its launch at ``v0``'s rate: its loads, not its merge, take its time.
    """
    hot, total = num(row, "l2_atomic_sectors_max"), num(row, "l2_atomic_sectors")
    pct, avg = num(row, "l2_slice_max_pct"), num(row, "l2_throughput_pct")
    if not all(ok(v) and v > 0 for v in (hot, total, pct, avg)):
        return None
    if not (serial.saturated(row) or serial.serialized(row)):
        return None
    slices, share = num(row, "l2_slices"), serial.serial_share(row)
    return Finding(
        "limit_l2_slice",
        params={
            "pct": pct,
            "avg": avg,
            "hot": hot,
            "all": total,
            "slices": slices if ok(slices) else 0.0,
            "serial": 100 * share if ok(share) else pct,
            "rate": _slice_rate(row, share),
        },
        metric="lts__throughput.max.pct_of_peak_sustained_elapsed",
        value=100 * share if ok(share) else pct,
        threshold=serial.SERIAL_PCT if ok(share) else serial.SLICE_PCT,
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
    busy = busy_sm_share(row)
    top = closest(row, busy)
    if top is None:
        return None
    kind, pct, metric = top
    atomics = hot_slice(row)
    if atomics is not None and atomics.value > pct:
        return atomics
    gpu = pct * busy if ACTIVE in metric else pct  # the GPU's share, idle SMs counted
    if gpu >= BOUND_PCT and sustained(row):
        return Finding(
            f"limit_{kind}",
            params={"pct": pct, **(_l1_part(row) if kind == "l1" else {})},
            metric=metric,
            value=pct,
            threshold=BOUND_PCT,
        )
    waves, blocks = num(row, "waves_per_sm"), num(row, "grid_blocks")
    sms = num(row, "sm_count")
    if ok(waves) and 0 < waves < 1 and ok(blocks) and ok(sms):
        return Finding(
            "limit_grid",
            params={"blocks": blocks, "sms": sms, column_names.KIND: msg(f"unit_{kind}"), "pct": pct, column_names.GPU: _gpu_part(pct, gpu)},
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


# the limiter's rules that name no unit near its peak (the launch waits on latency,
# is smaller than the GPU, or was only timed)
NO_UNIT = frozenset({"limit_latency", "limit_grid", "limit_timing"})


def near_ceiling(now: Finding | None) -> bool:
    """The limiter names a unit at its ceiling (a run's: its longest launch's).

    SGEMM ``v0``-``v4`` at n = 4096: L1/shared at 73-99% of its peak, while the
    roofline (DRAM, L2, the FP32 rate) reads them latency-bound.
    """
    if now is None:
        return False
    rule = now.evidence if now.rule == "limit_launch" else now.rule
    return bool(rule) and rule not in NO_UNIT


def sustained(row: Mapping[str, Any]) -> bool:
    """The launch keeps a warp per scheduler resident: its units' shares are rates.

    ncu's ``pct_of_peak_sustained_active`` is over the cycles an SM was active; a
    launch with fewer resident warps than the SM has schedulers is active for a
    few cycles of a few instructions, and a share over them is no sustained rate.
    CuPy's ``cupy_copy__float32_float32`` (one block, 1.6% achieved occupancy, one
    warp, 44 warp instructions in 2.0 us) reads L1/shared at 99% of its peak: it is
    a one-warp launch on a GPU of 132 SMs, its grid, not its L1. True where the
    counts are missing.
    """
    occupancy, warps = num(row, "achieved_occupancy_pct"), num(row, "max_warps_per_sm")
    schedulers = num(row, "schedulers_per_sm")
    if not (ok(occupancy) and ok(warps) and ok(schedulers)) or occupancy <= 0:
        return True
    return round(occupancy / 100 * warps) >= schedulers  # 6.249% of 64: 4 warps


def run_limit(
    row: Mapping[str, Any], launches: Sequence[Mapping[str, Any]]
) -> Finding | None:
    """What limits a run of several launches: its longest launch's limiter, named.

    The run's row holds each unit's throughput averaged over its launches by time,
    which no launch ran at: scan ``v3``'s row reads L2 at 78%, where its scan pass
    (60% of the run) runs its L2 at 86% and its reduce pass (35%) its DRAM at 76%.
    So the run's limiter is the one of the launch that takes most of its ncu time,
    with that launch's kernel and share, and each other launch's own limiter beside
    it (``limit_launch``). One launch (or launches without rows): :func:`limit`.
    """
    if len(launches) < 2:
        return limit(row)
    times = [num(r, "ncu_time_ns") for r in launches]
    if not all(ok(t) and t > 0 for t in times):
        return limit(row)
    total = sum(times)
    ranked = sorted(zip(times, launches, strict=True), key=lambda p: -p[0])
    main = limit(ranked[0][1])
    if main is None:
        return limit(row)
    others = []
    for t, launch in ranked[1:]:
        found = limit(launch)
        if found is not None:
            others.append(
                msg(
                    "limit_other",
                    kernel=str(launch.get(column_names.KERNEL) or ""),
                    share=100 * t / total,
                    cell=msg(f"cell_{found.rule}", **found.params),
                )
            )
    return Finding(
        "limit_launch",
        params={
            "now": msg(main.rule, **main.params),
            "cell": msg(f"cell_{main.rule}", **main.params),
            column_names.KERNEL: str(ranked[0][1].get(column_names.KERNEL) or ""),
            column_names.SHARE: 100 * ranked[0][0] / total,
            "others": others,
        },
        metric=main.metric,
        value=main.value,
        threshold=main.threshold,
        evidence=main.rule,
    )


def _l1_part(row: Mapping[str, Any]) -> dict[str, Any]:
    """Which half of the L1/shared unit is busy: its shared-memory wavefronts' share.

    ``l1tex__throughput`` is the busiest of the unit's sub-units; the shared-memory
    wavefronts of its data pipe say whether that is shared memory (SGEMM ``v2``'s
    conflicted tile: 98% of the 99%) or global loads through L1 (``v0``: 0% of 73%).
    """
    smem = num(row, "smem_throughput_pct")
    if not ok(smem):
        return {"part": ""}
    return {"part": msg("l1_part", smem=smem)}


def _slice_rate(row: Mapping[str, Any], share: float) -> Any:
    """The share of the launch its slice's atomics need at the family's rate.

    The launch that set the rate needs all of it by construction: its rate is said
    without the share.
    """
    if not ok(share):
        return ""
    evidence = serial.rate_evidence(row)
    if evidence["@"] == "serial_rate_own":
        return msg("limit_slice_rate_own", rate=evidence)
    return msg("limit_slice_rate", pct=100 * share, rate=evidence)


def _gpu_part(pct: float, gpu: float) -> dict[str, Any] | str:
    """The unit's share over all SMs, where ncu's is over the busy ones only."""
    return msg("limit_grid_gpu", gpu=gpu) if gpu < pct else ""
