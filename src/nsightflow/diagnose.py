"""Diagnosis: rules over the analysis table that turn metric changes into findings.

Every finding cites the metric and values behind it, so a reader can check it against
the tables of the report. Pure functions; no I/O.
"""

import math
import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

# Remedy per dominant stall reason (Nsight Compute's stall-reason descriptions,
# condensed; the ECE408 decision map in the seeds uses the same pairs).
STALL_REMEDIES: dict[str, str] = {
    "long_scoreboard": "warps wait on L1TEX (global/local memory) results: improve "
    "coalescing and locality, reuse loaded values from registers or shared memory, and "
    "keep more independent loads in flight per thread",
    "lg_throttle": "the global/local load-store queue is full: issue fewer, wider "
    "loads (16-byte vectors) or give each thread more work per load",
    "mio_throttle": "the MIO queue (shared memory, special math, dynamic branches) is "
    "full: use fewer, wider shared-memory accesses and remove bank conflicts",
    "short_scoreboard": "warps wait on MIO results (shared memory, SFU): remove bank "
    "conflicts and shared-memory round trips",
    "barrier": "warps wait at __syncthreads(): balance the work between barriers, "
    "use fewer barriers, or give each block more work per barrier",
    "wait": "fixed-latency dependencies between instructions: add independent work "
    "(instruction-level parallelism)",
    "math_pipe_throttle": "a math pipe is saturated: the kernel is compute-bound on "
    "that pipe; use a cheaper instruction mix or a wider pipe",
    "not_selected": "eligible warps were waiting for the scheduler: there is enough "
    "parallelism, this is not a bottleneck",
    "no_instruction": "instruction cache misses or branch targets not fetched: "
    "shrink hot code or unrolling",
    "branch_resolving": "branch target computation: reduce divergent control flow",
    "dispatch_stall": "the dispatcher could not issue: rare, check pipe conflicts",
    "drain": "stores draining at exit: normal for write-heavy tails",
    "membar": "memory barriers: use fewer or narrower fences",
    "imc_miss": "constant-cache misses: keep constant data small and uniform",
    "tex_throttle": "the texture pipe is full: fewer texture/surface accesses",
    "sleeping": "warps sleeping (nanosleep/yield)",
    "misc": "miscellaneous hardware stall",
}
_SECTION = re.compile(r"@section:[^:@]+:([^@]+)@")
_URL = re.compile(r"@url:([^:@]+):([^@]+)@")


def clean_ncu_text(text: str) -> str:
    """Ncu rule text with its ``@section:..@`` / ``@url:..@`` markup made readable."""
    text = _SECTION.sub(r"*\1*", text)
    return _URL.sub(r"[\1](\2)", text)


def pct_change(before: float, after: float) -> float:
    """Relative change in percent (NaN when undefined)."""
    if before is None or after is None or not before or math.isnan(before):
        return math.nan
    return 100.0 * (after - before) / before


def top_stalls(
    stalls: pd.DataFrame, variant: str, size: int, k: int = 3
) -> pd.DataFrame:
    """The k largest stall reasons of one launch, largest first."""
    rows = stalls[(stalls["variant"] == variant) & (stalls["size"] == size)]
    return rows.nlargest(k, "cycles")


def moved_stalls(
    stalls: pd.DataFrame, before: str, after: str, size: int, min_cycles: float = 0.5
) -> list[tuple[str, float, float]]:
    """Stall reasons whose cycles per issued instruction moved by >= ``min_cycles``."""
    a = stalls[(stalls["variant"] == before) & (stalls["size"] == size)].set_index(
        "reason"
    )
    b = stalls[(stalls["variant"] == after) & (stalls["size"] == size)].set_index(
        "reason"
    )
    moved = []
    for reason in a.index.union(b.index):
        x = float(a["cycles"].get(reason, 0.0))
        y = float(b["cycles"].get(reason, 0.0))
        if abs(y - x) >= min_cycles:
            moved.append((reason, x, y))
    return sorted(moved, key=lambda t: -abs(t[2] - t[1]))


def baseline_findings(row: Mapping[str, Any], stalls: pd.DataFrame) -> list[str]:
    """What limits the baseline at one profiled size."""
    found = []
    top = top_stalls(stalls, row["variant"], row["size"], 1)
    if not top.empty:
        reason = top.iloc[0]
        found.append(
            f"Dominant stall: **{reason['reason']}** ({reason['cycles']:.1f} cycles per "
            f"issued instruction, {100 * reason['share']:.0f}% of all stall cycles): "
            f"{STALL_REMEDIES.get(reason['reason'], 'see the Nsight Compute docs')}."
        )
    found += _memory_findings(row)
    return found


def _memory_findings(row: Mapping[str, Any]) -> list[str]:
    found = []
    if _ok(row.get("dram_bytes")) and _ok(row.get("ideal_bytes")):
        ratio = row["dram_bytes"] / row["ideal_bytes"]
        found.append(
            f"DRAM traffic is {ratio:.2f}x the ideal ({row['dram_bytes'] / 1e6:,.1f} MB "
            f"moved vs {row['ideal_bytes'] / 1e6:,.1f} MB for one read and one write of "
            f"each element; `dram__bytes_read.sum` + `dram__bytes_write.sum`)"
            + (
                ": the caches absorb the re-reads."
                if ratio < 1.2
                else ": data is re-read from DRAM."
            )
        )
    if _ok(row.get("pct_of_copy_bw")):
        pct = float(row["pct_of_copy_bw"])
        found.append(
            f"Achieved bandwidth {row['gbps']:,.0f} GB/s is {pct:.0f}% of the measured "
            "copy bandwidth"
            + (
                ": far below what this GPU moves, so latency, not bandwidth, limits it."
                if pct < 60
                else "."
            )
        )
    if _ok(row.get("pct_of_fp32_peak")) and float(row["pct_of_fp32_peak"]) > 30:
        found.append(
            f"Achieved {row['gflops']:,.0f} GFLOP/s is {row['pct_of_fp32_peak']:.0f}% of "
            "the measured FP32 peak."
        )
    return found


def step_findings(
    before: Mapping[str, Any], after: Mapping[str, Any], stalls: pd.DataFrame
) -> list[str]:
    """Why a step changed the time at one size, each finding citing its metrics."""
    found = []
    change = pct_change(before["time_median_us"], after["time_median_us"])
    verb = "faster" if change < 0 else "slower"
    found.append(
        f"{after['variant']} is {abs(change):.1f}% {verb} than "
        f"{before['variant']} ({before['time_median_us']:.2f} us -> "
        f"{after['time_median_us']:.2f} us)."
    )
    for reason, x, y in moved_stalls(
        stalls, before["variant"], after["variant"], after["size"]
    )[:3]:
        direction = "rose" if y > x else "fell"
        found.append(
            f"Stall **{reason}** {direction} from {x:.2f} to {y:.2f} cycles per "
            f"issued instruction "
            f"(`smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio`)"
            f"{': ' + STALL_REMEDIES[reason] if y > x and reason in STALL_REMEDIES else ''}."
        )
    conflicts_a = _sum(after, "smem_conflicts_ld", "smem_conflicts_st")
    conflicts_b = _sum(before, "smem_conflicts_ld", "smem_conflicts_st")
    share_a = _num(after, "smem_conflict_share")
    share_b = _num(before, "smem_conflict_share")
    metric = "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum`"
    if conflicts_a > conflicts_b:
        severity = (
            "threads of a warp hit the same bank and the access is replayed: pad or "
            "swizzle the shared layout"
            if share_a >= 0.3
            else "a small share, not the main cost here"
        )
        found.append(
            f"Shared-memory bank conflicts {conflicts_b:,.0f} -> {conflicts_a:,.0f} "
            f"({metric}): {100 * share_a:.0f}% of shared-memory wavefronts are "
            f"conflict replays, {severity}."
        )
    elif share_b >= 0.05 and conflicts_a < 0.5 * conflicts_b:
        verb = "removed" if share_a < 0.05 else "reduced"
        found.append(
            f"Shared-memory bank conflicts {verb}: {conflicts_b:,.0f} -> "
            f"{conflicts_a:,.0f} ({metric}); conflict replays fall from "
            f"{100 * share_b:.0f}% to {100 * share_a:.0f}% of shared-memory wavefronts."
        )
    spr_a, spr_b = (
        _num(after, "sectors_per_request"),
        _num(before, "sectors_per_request"),
    )
    if _ok(spr_a) and _ok(spr_b) and abs(spr_a - spr_b) > 0.5:
        found.append(
            f"Global load sectors per request {spr_b:.2f} -> {spr_a:.2f}: "
            + (
                "more scattered, partially used requests (e.g. halo loads by "
                "a few threads)."
                if spr_a < spr_b
                else "each request now serves more data."
            )
        )
    dram_a, dram_b = _num(after, "dram_bytes"), _num(before, "dram_bytes")
    if _ok(dram_a) and _ok(dram_b) and abs(pct_change(dram_b, dram_a)) > 5:
        found.append(f"DRAM bytes {dram_b / 1e6:,.1f} MB -> {dram_a / 1e6:,.1f} MB.")
    occ_a = _num(after, "achieved_occupancy_pct")
    occ_b = _num(before, "achieved_occupancy_pct")
    if _ok(occ_a) and _ok(occ_b) and abs(occ_a - occ_b) > 5:
        found.append(
            f"Achieved occupancy {occ_b:.0f}% -> {occ_a:.0f}% "
            "(`sm__warps_active.avg.pct_of_peak_sustained_active`)."
        )
    reg_a, reg_b = _num(after, "registers"), _num(before, "registers")
    if _ok(reg_a) and _ok(reg_b) and reg_a != reg_b:
        found.append(f"Registers per thread {reg_b:.0f} -> {reg_a:.0f}.")
    return found


def _num(row: Mapping[str, Any], key: str) -> float:
    """A numeric cell, NaN when absent."""
    value = row.get(key)
    return math.nan if value is None else float(value)


def _ok(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _sum(row: Mapping[str, Any], *cols: str) -> float:
    return float(sum(row[c] for c in cols if _ok(row.get(c))))


OCCUPANCY_LIMITERS = {
    "occ_limit_registers": "registers per thread",
    "occ_limit_shared_mem": "shared memory per block",
    "occ_limit_warps": "block size (warps per SM)",
    "occ_limit_blocks": "blocks per SM",
}


def occupancy_findings(row: Mapping[str, Any]) -> list[str]:
    """Which resource caps theoretical occupancy, and how far achieved falls below it."""
    limits = {k: _num(row, k) for k in OCCUPANCY_LIMITERS}
    limits = {k: v for k, v in limits.items() if not math.isnan(v)}
    theoretical = _num(row, "theoretical_occupancy_pct")
    achieved = _num(row, "achieved_occupancy_pct")
    found = []
    if limits and not math.isnan(theoretical) and theoretical < 100:
        key = min(limits, key=lambda k: limits[k])
        found.append(
            f"Theoretical occupancy {theoretical:.0f}% is capped by "
            f"{OCCUPANCY_LIMITERS[key]} ({limits[key]:.0f} blocks per SM, "
            f"`launch__occupancy_limit_{key.removeprefix('occ_limit_')}`)."
        )
    if not math.isnan(theoretical) and not math.isnan(achieved):
        if theoretical - achieved > 20:
            found.append(
                f"Achieved occupancy {achieved:.0f}% is far below the theoretical "
                f"{theoretical:.0f}%: blocks finish unevenly or the grid is too small "
                "to fill the GPU (a tail effect)."
            )
    return found


def spill_findings(resources: Mapping[str, Any]) -> list[str]:
    """Register spills reported by ptxas."""
    stores = resources.get("spill_store_bytes", 0) or 0
    loads = resources.get("spill_load_bytes", 0) or 0
    if stores or loads:
        return [
            f"Register spills: {stores} bytes stored and {loads} bytes loaded per "
            f"thread (ptxas), {resources.get('registers')} registers: spilled values go "
            "through local memory; reduce live values or relax __launch_bounds__."
        ]
    return []


def regime_findings(rows: pd.DataFrame, l2_bytes: float | None) -> list[str]:
    """Jumps in achieved bandwidth along one variant's size sweep (e.g. leaving L2)."""
    rows = rows.sort_values("size")
    found = []
    pairs = zip(rows.to_dict("records"), rows.to_dict("records")[1:], strict=False)
    for a, b in pairs:
        ga, gb = float(a["gbps"]), float(b["gbps"])
        if math.isnan(ga) or math.isnan(gb) or ga <= 0:
            continue
        change = 100 * (gb - ga) / ga
        if change > -15:
            continue
        crossed = (
            l2_bytes is not None and a["ideal_bytes"] <= l2_bytes < b["ideal_bytes"]
        )
        reason = (
            f"the working set ({b['ideal_bytes'] / 1e6:,.0f} MB) no longer fits the "
            f"{l2_bytes / 1e6:,.0f} MB L2, so every byte now comes from DRAM"
            if crossed and l2_bytes
            else "a regime change worth profiling at both sizes"
        )
        found.append(
            f"`{a['variant']}`: achieved bandwidth falls {abs(change):.0f}% from "
            f"{ga:,.0f} GB/s at n = {a['size']} to {gb:,.0f} GB/s at n = {b['size']}: "
            f"{reason}."
        )
    return found


def rule_changes(rules: pd.DataFrame, before: str, after: str, size: int) -> list[str]:
    """Optimization rules of ncu that appeared or disappeared with a step, with speedups."""
    if rules.empty:
        return []
    opt = rules[(rules["type"] == "optimization") & (rules["size"] == size)]

    def by_rule(variant: str) -> dict[str, float]:
        rows = opt[opt["variant"] == variant]
        return {
            str(r["rule"]): float(r["speedup_pct"]) for r in rows.to_dict("records")
        }

    a, b = by_rule(before), by_rule(after)
    found = []
    for rule in sorted(set(b) - set(a)):
        found.append(
            f"New ncu finding **{rule}** (estimated speedup {_pct_text(b[rule])})."
        )
    for rule in sorted(set(a) - set(b)):
        found.append(
            f"ncu finding **{rule}** of `{before}` is gone "
            f"(it estimated {_pct_text(a[rule])})."
        )
    for rule in sorted(set(a) & set(b)):
        if not math.isnan(a[rule]) and not math.isnan(b[rule]):
            if abs(b[rule] - a[rule]) >= 10:
                found.append(
                    f"ncu **{rule}** estimated speedup {a[rule]:.0f}% -> {b[rule]:.0f}%."
                )
    return found


def _pct_text(value: float) -> str:
    return "n/a" if math.isnan(value) else f"up to {value:.0f}%"


CROSS_CHECK_PCT = 10.0  # ncu vs event timing: beyond this, say so
UNSTABLE_CV = 0.05  # coefficient of variation above which samples are flagged


def measurement_findings(rows: pd.DataFrame) -> list[str]:
    """Disagreements between ncu and event timing, and unstable or throttled samples."""
    found = []
    for record in rows.to_dict("records"):
        r = {str(k): v for k, v in record.items()}
        where = f"`{r['variant']}` at n = {r['size']}"
        diff = _num(r, "ncu_vs_event_pct")
        if not math.isnan(diff) and abs(diff) > CROSS_CHECK_PCT:
            found.append(
                f"{where}: ncu's `gpu__time_duration.sum` ({r['ncu_time_us']:,.2f} us) "
                f"differs from the event-timed median ({r['time_median_us']:,.2f} us, "
                f"{r.get('cache') or 'hot'} cache) by {diff:+.0f}%: ncu times one launch "
                "with its own cache and clock state; compare the two with care."
            )
        cv = _num(r, "cv")
        if not math.isnan(cv) and (cv > UNSTABLE_CV or r.get("settled") is False):
            found.append(
                f"{where}: unstable samples (CV {100 * cv:.1f}%, "
                f"{'settled' if r.get('settled') else 'median did not settle'} "
                f"after {int(r['reps'])} launches)."
            )
        if r.get("throttled") is True:
            found.append(f"{where}: NVML reported a power or thermal slowdown.")
        if r.get("shared_gpu") is True:
            found.append(
                f"{where}: measured on a shared GPU (NVML listed other processes "
                "before or after sampling); two kernels at once give wrong numbers."
            )
    return found
