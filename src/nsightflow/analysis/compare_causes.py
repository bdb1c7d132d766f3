"""What else differs between two runs: counters, ncu rules, provenance, code, ceilings.

The likely causes of a verdict of :mod:`nsightflow.analysis.compare`: the ncu counters
that moved where both runs profiled a variant at a size, the rule results that appeared
or went away, what the runs were measured with (GPU, driver, CUDA, ncu, clocks, kernels
revision, timing settings), whether each variant's code changed (with the diff), and
and :func:`compare_runs` assembles everything (with each variant's share of its own
GPU's ceilings across GPUs, :func:`nsightflow.analysis.compare.ceiling_shares`).
Pure functions over frames.
"""

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from nsightflow.analysis import compare as C
from nsightflow.analysis.analyze import NCU_COLUMNS, stall_frame, wide_metrics
from nsightflow.analysis.compare_config import configuration, mark_configurations
from nsightflow.analysis.compare_invalid import invalid_pairs, without_invalid
from nsightflow.analysis.launches import aggregate_launches
from nsightflow.analysis.runs import Run, plain_revision
from nsightflow.contracts import COMPARE_COUNTERS, COMPARE_RULES, COMPARE_SOURCE
from nsightflow.contracts import columns as col
from nsightflow.family.model import Family
from nsightflow.tools import ncu_metrics as M

# Counters compared where both runs profiled a pair: column of
# nsightflow.analysis.analyze.wide_metrics -> how it moves. "rel": a relative change
# (counts, sizes of things); "pp": percentage points (shares and percentages).
# ncu's own duration of its one launch is left out: the timing verdict is about time.
COUNTERS: dict[str, str] = {
    "dram_bytes": "rel",
    "inst_executed": "rel",
    "l2_bytes_moved": "rel",
    "sectors_per_request": "rel",
    "smem_conflicts": "rel",
    "smem_conflict_pct": "pp",
    "l2_atomic_sectors": "rel",
    col.REGISTERS: "rel",
    "achieved_occupancy_pct": "pp",
    "l2_hit_pct": "pp",
    "lane_efficiency_pct": "pp",
}
# A counter "moved" from this much on: 10% for counts, 5 points for shares. Between the
# two recorded runs of the unchanged Jacobi-2D and SGEMM kernels (profiled a day
# apart), instructions and sectors per request did not move, DRAM bytes by under 1%,
# L2 bytes 2.4%, shared-memory conflict counts 8.2% (a 0.4-point share), stall shares
# under 3.4 points and the L2 hit rate 4.9 points (docs/decisions/compare-verdict.md).
MOVED_REL = 0.10
MOVED_PP = 5.0
STALL_PREFIX = "stall_"
# What each run was measured with, per family, in this order.
PROVENANCE_FIELDS = (
    col.GPU,
    "driver",
    "cuda_driver",
    "nvcc",
    "ncu",
    "clock_control",
    "ncu_set",
    "ncu_sections",
    col.SM_CLOCK_MHZ,
    col.MEM_CLOCK_MHZ,
    "kernels_git",
    "timing_settings",
    "replayed",
    col.DATE,
    "host",
)


@dataclass(frozen=True)
class Comparison:
    """Everything ``nsightflow compare`` reports (each frame's columns: its function)."""

    a: Run
    b: Run
    settings: C.CompareSettings
    pairs: pd.DataFrame  # compare.pair_timings
    statuses: pd.DataFrame  # compare.status_changes
    unpaired: pd.DataFrame  # compare.unpaired_sizes
    counters: pd.DataFrame  # counter_moves
    rules: pd.DataFrame  # rule_changes
    provenance: pd.DataFrame  # provenance_diff
    sources: pd.DataFrame  # source_changes
    shares: pd.DataFrame  # compare.ceiling_shares (empty unless the GPUs differ)
    invalid: pd.DataFrame  # compare_invalid.invalid_pairs


def counter_table(run: Run) -> pd.DataFrame:
    """One row per family x variant x profiled size: :data:`COUNTERS` and stall shares.

    Stall shares are ``stall_<reason>`` columns in percent of all stall cycles.
    """
    if run.metrics.empty:
        return pd.DataFrame(columns=[col.FAMILY, col.VARIANT, col.SIZE])
    # Only what is compared: combining launches metric by metric is slow, and a
    # lean report holds over a thousand metrics per launch.
    used = {*NCU_COLUMNS.values(), *map(M.stall_metric, M.STALL_REASONS)}
    frames = []
    for family, long in run.metrics.groupby(col.FAMILY, sort=True):
        long = aggregate_launches(long[long[col.METRIC].isin(used)])
        wide = wide_metrics(long)
        wide["smem_conflicts"] = wide[
            ["smem_conflicts_ld", "smem_conflicts_st", "smem_conflicts_atom"]
        ].sum(axis=1, min_count=1)
        wide["smem_conflict_pct"] = 100 * wide["smem_conflict_share"]
        stalls = stall_frame(long)
        if not stalls.empty:
            shares = stalls.pivot_table(
                index=[col.VARIANT, col.SIZE], columns=col.REASON, values=col.SHARE
            )
            shares = (100 * shares).add_prefix(STALL_PREFIX).reset_index()
            wide = wide.merge(shares, on=[col.VARIANT, col.SIZE], how="left")
        wide.insert(0, col.FAMILY, family)
        frames.append(wide)
    return pd.concat(frames, ignore_index=True)


def counter_moves(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """:data:`~nsightflow.contracts.COMPARE_COUNTERS` of every pair profiled in both runs.

    ``change`` is relative in percent (kind ``rel``) or in points (``pp``); ``score``
    puts both on one scale for ranking (``|b - a| / max(|a|, |b|)``, or points / 100);
    ``moved``: at least :data:`MOVED_REL` or :data:`MOVED_PP`.
    """
    keys = [col.FAMILY, col.VARIANT, col.SIZE]
    both = a.merge(b, on=keys, suffixes=("_a", "_b"))
    stalls = sorted(
        {c[: -len("_a")] for c in both.columns if c.startswith(STALL_PREFIX)}
    )
    kinds = {**COUNTERS, **dict.fromkeys(stalls, "pp")}
    rows = []
    for r in both.to_dict("records"):
        for counter, kind in kinds.items():
            va, vb = _number(r.get(f"{counter}_a")), _number(r.get(f"{counter}_b"))
            if va is None or vb is None:
                continue
            rows.append({k: r[k] for k in keys} | _move(counter, kind, va, vb))
    moves = COMPARE_COUNTERS.frame(rows)
    moves[col.MOVED] = moves[col.MOVED].astype(bool)  # a boolean mask even when empty
    return moves


def _number(value: Any) -> float | None:
    """A counter's value, or None where it is missing."""
    if isinstance(value, int | float | np.number) and not math.isnan(value):
        return float(value)
    return None


def _move(counter: str, kind: str, a: float, b: float) -> dict[str, Any]:
    if kind == "pp":
        change, score = b - a, abs(b - a) / 100.0
        moved = abs(change) >= MOVED_PP
    else:
        top = max(abs(a), abs(b))
        change = 100.0 * (b - a) / a if a else (math.inf if b else 0.0)
        score = abs(b - a) / top if top else 0.0
        moved = score >= MOVED_REL
    return {
        col.COUNTER: counter,
        col.KIND: kind,
        col.A: float(a),
        col.B: float(b),
        col.CHANGE: float(change),
        col.SCORE: float(score),
        col.MOVED: bool(moved),
    }


def rule_changes(a: Run, b: Run) -> pd.DataFrame:
    """Nsight Compute rule results (optimizations, warnings) in one run only.

    Only launches profiled in both runs, and rules of sections both collected, count:
    a rule "appeared" where B has it and A, having looked, does not. Launches are
    matched by their place in the variant's run (a renamed kernel is the same launch);
    ``kernel`` names the kernel of the run that has the rule. A rule that fires more
    than once for a launch is kept once, with its largest estimated speedup. Returns
    :data:`nsightflow.contracts.COMPARE_RULES`.
    """
    keys = [col.FAMILY, col.VARIANT, col.SIZE, col.LAUNCH, col.RULE, col.TYPE]
    if a.rules.empty or b.rules.empty:
        return COMPARE_RULES.empty()
    fired = [
        r.rules[r.rules[col.TYPE].isin(["optimization", "warning"])]
        .groupby(keys, as_index=False)[col.SPEEDUP_PCT]
        .max()
        .merge(r.rules[[*keys, col.SECTION, col.KERNEL]].drop_duplicates(keys), on=keys)
        for r in (a, b)
    ]
    profiled = (
        a.rules[[col.FAMILY, col.VARIANT, col.SIZE]]
        .drop_duplicates()
        .merge(b.rules[[col.FAMILY, col.VARIANT, col.SIZE]].drop_duplicates())
    )
    fired = [f.merge(profiled) for f in fired]
    both_looked = [
        f[[_collected(r, (a, b)) for r in f[[col.FAMILY, col.SECTION]].itertuples()]]
        for f in fired
    ]
    merged = both_looked[0][[*keys, col.SPEEDUP_PCT, col.KERNEL]].merge(
        both_looked[1][[*keys, col.SPEEDUP_PCT, col.KERNEL]],
        on=keys,
        how="outer",
        indicator=True,
        suffixes=("_a", "_b"),
    )
    one = merged[merged["_merge"] != "both"].copy()
    one[col.CHANGE] = one["_merge"].map({"left_only": "gone", "right_only": "appeared"})
    one[col.SPEEDUP_PCT] = one["speedup_pct_b"].fillna(one["speedup_pct_a"])
    one[col.KERNEL] = one["kernel_b"].fillna(one["kernel_a"])
    out: pd.DataFrame = (
        one[list(COMPARE_RULES.columns)].sort_values(keys).reset_index(drop=True)
    )
    return out


def _collected(row: Any, runs: tuple[Run, Run]) -> bool:
    """Whether both runs collected the section of a rule row (``family, section``)."""
    for run in runs:
        sections = run.families.get(row.family, {}).get("ncu_sections")
        if sections and sections != "full" and row.section not in sections.split():
            return False
    return True


def provenance_diff(a: Run, b: Run) -> pd.DataFrame:
    """What each run was measured with, per family both runs timed.

    Returns:
        ``family, field, a, b, changed`` for :data:`PROVENANCE_FIELDS` (clocks: the
        median SM and memory clock NVML read before timing each size).
    """
    rows = []
    for family in sorted(set(a.families) & set(b.families)):
        sides = [_provenance(run, family) for run in (a, b)]
        for field in PROVENANCE_FIELDS:
            va, vb = sides[0].get(field), sides[1].get(field)
            rows.append(
                {
                    col.FAMILY: family,
                    "field": field,
                    col.A: va,
                    col.B: vb,
                    "changed": field not in ("date", "host") and va != vb,
                }
            )
    return pd.DataFrame(rows, columns=[col.FAMILY, "field", col.A, col.B, "changed"])


def _provenance(run: Run, family: str) -> dict[str, Any]:
    info = dict(run.families.get(family, {}))
    settings = info.get("timing_settings") or {}
    keys = (col.CACHE, "warmup", "min_reps", "max_reps", "budget_s", "settle_rel")
    info["timing_settings"] = " ".join(
        f"{k}={settings[k]}" for k in keys if k in settings
    )
    timed = run.timings[run.timings[col.FAMILY] == family]
    for clock in (col.SM_CLOCK_MHZ, col.MEM_CLOCK_MHZ):
        values = pd.to_numeric(timed[clock], errors="coerce").dropna()
        info[clock] = int(values.median()) if len(values) else None
    return {k: (None if v == "None" else v) for k, v in info.items()}


def source_changes(a: Run, b: Run) -> pd.DataFrame:
    """Whether each variant's code changed between the runs, and how.

    Returns:
        ``family, variant, code, revision_a, revision_b, files, diff``: ``code`` is
        ``changed``, ``same`` or ``unknown`` (neither the code nor a common clean
        revision is known); ``files`` the files that differ; ``diff`` a unified
        diff of them.
    """
    rows = []
    for key in sorted(set(a.sources) & set(b.sources)):
        sa, sb = a.sources[key], b.sources[key]
        ra, rb = sa.get("revision"), sb.get("revision")
        code, files, diff = "unknown", [], ""
        if col.FILES in sa and col.FILES in sb:
            files = sorted(
                name
                for name in set(sa[col.FILES]) | set(sb[col.FILES])
                if sa[col.FILES].get(name) != sb[col.FILES].get(name)
            )
            code = "changed" if files else "same"
            diff = "\n".join(
                _diff(sa[col.FILES], sb[col.FILES], name) for name in files
            )
        elif ra and ra == rb and plain_revision(str(ra)) == ra:
            code = "same"  # one clean revision: the same files
        config = configuration(sa.get(col.CONFIG), sb.get(col.CONFIG))
        if config == "different":
            code = "changed"  # another configuration is other code that ran
        rows.append(
            {
                col.FAMILY: key[0],
                col.VARIANT: key[1],
                col.CODE: code,
                col.REVISION_A: ra,
                col.REVISION_B: rb,
                col.FILES: ", ".join(files),
                col.DIFF: diff,
                col.CONFIG: config,
                col.CONFIG_A: sa.get(col.CONFIG),
                col.CONFIG_B: sb.get(col.CONFIG),
            }
        )
    return COMPARE_SOURCE.frame(rows)


def _diff(a: Mapping[str, str], b: Mapping[str, str], name: str) -> str:
    lines = difflib.unified_diff(
        a.get(name, "").splitlines(),
        b.get(name, "").splitlines(),
        fromfile=f"A/{name}",
        tofile=f"B/{name}",
        lineterm="",
        n=2,
    )
    return "\n".join(lines)


def compare_runs(
    a: Run, b: Run, settings: C.CompareSettings, families: Mapping[str, Family]
) -> Comparison:
    """Every table of the comparison of run A with run B.

    Args:
        a: The run compared against (before).
        b: The run compared (after).
        settings: Threshold and interval settings.
        families: Manifests by family name (for the ideal work in ceiling shares).
    """
    sources = source_changes(a, b)
    pairs = mark_configurations(C.pair_timings(a.timings, b.timings, settings), sources)
    invalid = invalid_pairs(a, b)
    return Comparison(
        a=a,
        b=b,
        settings=settings,
        pairs=pairs,
        statuses=without_invalid(C.status_changes(a.statuses, b.statuses), invalid),
        unpaired=without_invalid(C.unpaired_sizes(a.timings, b.timings), invalid),
        counters=counter_moves(counter_table(a), counter_table(b)),
        rules=rule_changes(a, b),
        provenance=provenance_diff(a, b),
        sources=sources,
        shares=C.ceiling_shares(pairs, families, a, b),
        invalid=invalid,
    )
