"""Diagnosis: rules over the analysis table that turn metric changes into findings.

Every finding cites the metric and values behind it, so a reader can check it against
the tables of the report. Pure functions; no I/O.
"""

import math
import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

from nsightflow.report.i18n import T

# Stall reasons with a remedy in the catalogue (``remedy_<reason>``): Nsight Compute's
# stall-reason descriptions, condensed; the ECE408 decision map in the seeds uses the
# same pairs.
STALL_REASONS: tuple[str, ...] = (
    "long_scoreboard",
    "lg_throttle",
    "mio_throttle",
    "short_scoreboard",
    "barrier",
    "wait",
    "math_pipe_throttle",
    "not_selected",
    "no_instruction",
    "branch_resolving",
    "dispatch_stall",
    "drain",
    "membar",
    "imc_miss",
    "tex_throttle",
    "sleeping",
    "misc",
)
_SECTION = re.compile(r"@section:[^:@]+:([^@]+)@")
_URL = re.compile(r"@url:([^:@]+):([^@]+)@")


def remedy(reason: str) -> str | None:
    """What to do about a stall reason, in the current language (None if unknown)."""
    return T(f"remedy_{reason}") if reason in STALL_REASONS else None


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
            T(
                "dominant_stall",
                reason=reason["reason"],
                cycles=reason["cycles"],
                share=100 * reason["share"],
                remedy=remedy(reason["reason"]) or T("remedy_unknown"),
            )
        )
    found += _memory_findings(row)
    return found


def _memory_findings(row: Mapping[str, Any]) -> list[str]:
    found = []
    if _ok(row.get("dram_bytes")) and _ok(row.get("ideal_bytes")):
        ratio = row["dram_bytes"] / row["ideal_bytes"]
        found.append(
            T(
                "dram_traffic",
                ratio=ratio,
                moved=row["dram_bytes"] / 1e6,
                ideal=row["ideal_bytes"] / 1e6,
                verdict=T("dram_absorbed" if ratio < 1.2 else "dram_reread"),
            )
        )
    if _ok(row.get("pct_of_copy_bw")):
        pct = float(row["pct_of_copy_bw"])
        key = "bandwidth_latency_bound" if pct < 60 else "bandwidth_share"
        found.append(T(key, gbps=row["gbps"], pct=pct))
    if _ok(row.get("pct_of_fp32_peak")) and float(row["pct_of_fp32_peak"]) > 30:
        found.append(T("fp32_share", gflops=row["gflops"], pct=row["pct_of_fp32_peak"]))
    return found


def step_findings(
    before: Mapping[str, Any], after: Mapping[str, Any], stalls: pd.DataFrame
) -> list[str]:
    """Why a step changed the time at one size, each finding citing its metrics."""
    change = pct_change(before["time_median_us"], after["time_median_us"])
    found = [
        T(
            "step_faster" if change < 0 else "step_slower",
            after=after["variant"],
            before=before["variant"],
            pct=abs(change),
            t0=before["time_median_us"],
            t1=after["time_median_us"],
        )
    ]
    found += _stall_findings(before, after, stalls)
    found += _conflict_findings(before, after)
    found += _traffic_findings(before, after)
    return found


def _stall_findings(
    before: Mapping[str, Any], after: Mapping[str, Any], stalls: pd.DataFrame
) -> list[str]:
    """The three stall reasons that moved most, with a remedy for those that rose."""
    found = []
    for reason, x, y in moved_stalls(
        stalls, before["variant"], after["variant"], after["size"]
    )[:3]:
        fix = remedy(reason) if y > x else None
        found.append(
            T(
                "stall_rose" if y > x else "stall_fell",
                reason=reason,
                x=x,
                y=y,
                metric=f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio",
                remedy=T("remedy_follows", remedy=fix) if fix else "",
            )
        )
    return found


def _conflict_findings(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[str]:
    """Shared-memory bank conflicts that a step added or removed."""
    conflicts_a = _sum(after, "smem_conflicts_ld", "smem_conflicts_st")
    conflicts_b = _sum(before, "smem_conflicts_ld", "smem_conflicts_st")
    share_a = _num(after, "smem_conflict_share")
    share_b = _num(before, "smem_conflict_share")
    metric = "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum`"
    if conflicts_a > conflicts_b:
        severity = T("conflicts_costly" if share_a >= 0.3 else "conflicts_minor")
        return [
            T(
                "conflicts_rose",
                before=conflicts_b,
                after=conflicts_a,
                metric=metric,
                share=100 * share_a,
                severity=severity,
            )
        ]
    if share_b >= 0.05 and conflicts_a < 0.5 * conflicts_b:
        verb = T("conflicts_removed" if share_a < 0.05 else "conflicts_reduced")
        return [
            T(
                "conflicts_fell",
                verb=verb,
                before=conflicts_b,
                after=conflicts_a,
                metric=metric,
                share_before=100 * share_b,
                share_after=100 * share_a,
            )
        ]
    return []


def _traffic_findings(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """Sectors per request, DRAM bytes, occupancy and registers that moved."""
    found = []
    spr_a, spr_b = (
        _num(after, "sectors_per_request"),
        _num(before, "sectors_per_request"),
    )
    if _ok(spr_a) and _ok(spr_b) and abs(spr_a - spr_b) > 0.5:
        found.append(
            T(
                "sectors_moved",
                before=spr_b,
                after=spr_a,
                reading=T(_sectors_key(spr_a)),
            )
        )
    dram_a, dram_b = _num(after, "dram_bytes"), _num(before, "dram_bytes")
    if _ok(dram_a) and _ok(dram_b) and abs(pct_change(dram_b, dram_a)) > 5:
        found.append(T("dram_moved", before=dram_b / 1e6, after=dram_a / 1e6))
    occ_a = _num(after, "achieved_occupancy_pct")
    occ_b = _num(before, "achieved_occupancy_pct")
    if _ok(occ_a) and _ok(occ_b) and abs(occ_a - occ_b) > 5:
        found.append(T("occupancy_moved", before=occ_b, after=occ_a))
    reg_a, reg_b = _num(after, "registers"), _num(before, "registers")
    if _ok(reg_a) and _ok(reg_b) and reg_a != reg_b:
        found.append(T("registers_moved", before=reg_b, after=reg_a))
    return found


def _sectors_key(sectors: float) -> str:
    """How to read global load sectors per request (32-byte sectors, 32 lanes).

    A warp's 32 coalesced 4-byte loads touch 4 sectors, its 16-byte loads 16: fewer
    than 4 means idle lanes or shared addresses, more than 16 scattered addresses.
    """
    if sectors > 16.5:
        return "sectors_scattered"
    if sectors < 3.5:
        return "sectors_sparse"
    return "sectors_dense"


def _num(row: Mapping[str, Any], key: str) -> float:
    """A numeric cell, NaN when absent."""
    value = row.get(key)
    return math.nan if value is None else float(value)


def _ok(value: Any) -> bool:
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def _sum(row: Mapping[str, Any], *cols: str) -> float:
    return float(sum(row[c] for c in cols if _ok(row.get(c))))


# Occupancy limit column of the analysis -> catalogue key of the resource it names.
OCCUPANCY_LIMITERS = {
    "occ_limit_registers": "limiter_registers",
    "occ_limit_shared_mem": "limiter_shared_mem",
    "occ_limit_warps": "limiter_warps",
    "occ_limit_blocks": "limiter_blocks",
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
            T(
                "occupancy_capped",
                theoretical=theoretical,
                limiter=T(OCCUPANCY_LIMITERS[key]),
                blocks=limits[key],
                metric=f"launch__occupancy_limit_{key.removeprefix('occ_limit_')}",
            )
        )
    if not math.isnan(theoretical) and not math.isnan(achieved):
        if theoretical - achieved > 20:
            found.append(
                T("occupancy_tail", achieved=achieved, theoretical=theoretical)
            )
    return found


def spill_findings(resources: Mapping[str, Any]) -> list[str]:
    """Register spills reported by ptxas."""
    stores = resources.get("spill_store_bytes", 0) or 0
    loads = resources.get("spill_load_bytes", 0) or 0
    if stores or loads:
        return [
            T(
                "spills",
                stores=stores,
                loads=loads,
                registers=resources.get("registers"),
            )
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
            T(
                "regime_left_l2",
                working_set=b["ideal_bytes"] / 1e6,
                l2=l2_bytes / 1e6,
            )
            if crossed and l2_bytes
            else T("regime_other")
        )
        found.append(
            T(
                "regime_drop",
                variant=a["variant"],
                pct=abs(change),
                gbps_a=ga,
                n_a=a["size"],
                gbps_b=gb,
                n_b=b["size"],
                reason=reason,
            )
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
    found = [
        T("rule_new", rule=rule, pct=_pct_text(b[rule]))
        for rule in sorted(set(b) - set(a))
    ]
    found += [
        T("rule_gone", rule=rule, before=before, pct=_pct_text(a[rule]))
        for rule in sorted(set(a) - set(b))
    ]
    for rule in sorted(set(a) & set(b)):
        if not math.isnan(a[rule]) and not math.isnan(b[rule]):
            if abs(b[rule] - a[rule]) >= 10:
                found.append(T("rule_moved", rule=rule, before=a[rule], after=b[rule]))
    return found


def _pct_text(value: float) -> str:
    return "n/a" if math.isnan(value) else T("up_to_pct", pct=value)


CROSS_CHECK_PCT = 10.0  # ncu vs event timing: beyond this, say so
UNSTABLE_CV = 0.05  # coefficient of variation above which samples are flagged


def measurement_findings(rows: pd.DataFrame) -> list[str]:
    """Disagreements between ncu and event timing, and unstable or throttled samples."""
    found = []
    for record in rows.to_dict("records"):
        found += _launch_checks({str(k): v for k, v in record.items()})
    return found


def _launch_checks(r: dict[str, Any]) -> list[str]:
    """The measurement findings of one variant at one size."""
    found = []
    where = T("where", variant=r["variant"], n=r["size"])
    diff = _num(r, "ncu_vs_event_pct")
    if not math.isnan(diff) and abs(diff) > CROSS_CHECK_PCT:
        found.append(
            T(
                "ncu_disagrees",
                where=where,
                ncu=r["ncu_time_us"],
                event=r["time_median_us"],
                cache=r.get("cache") or "hot",
                diff=diff,
            )
        )
    cv = _num(r, "cv")
    if not math.isnan(cv) and (cv > UNSTABLE_CV or r.get("settled") is False):
        found.append(
            T(
                "unstable",
                where=where,
                cv=100 * cv,
                settled=T("settled" if r.get("settled") else "not_settled"),
                reps=int(r["reps"]),
            )
        )
    if r.get("throttled") is True:
        found.append(T("throttled", where=where))
    if r.get("shared_gpu") is True:
        found.append(T("shared_gpu", where=where))
    return found
