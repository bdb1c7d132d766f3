"""The rows of the step-change map of :mod:`nsightflow.plot.steps`.

Which quantities it shows, and where each row's values come from.

The counters of :data:`STEP_METRICS` are read from the analysis for every variant;
a step's primary cause that measures something else adds its own row: a stall
metric computed from ``stalls.csv`` for every variant, a counter of the analysis
(:data:`COUNTER_COLUMNS`) read for every variant, any other with the values the
step's finding recorded.
"""

from dataclasses import dataclass, field

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.factors import REQUEST_METRICS
from nsightflow.plot.quantity import OCCUPANCY, is_stall, metric_quantity, stall_value

# Metrics whose change per step the step-changes map shows: column -> label.
STEP_METRICS = {
    col.TIME_MEDIAN_US: "time",
    "inst_executed": "issued warp instructions",
    "dram_bytes": "DRAM bytes",
    "l2_bytes_moved": "L2 bytes",
    "l1_bytes_moved": "L1 bytes (global ld/st)",
    "sectors_per_request": "sectors / request",
    "smem_conflict_share": "smem ld/st conflict share",
    "smem_conflicts_atom": "smem atomic conflicts",
    "achieved_occupancy_pct": "achieved occupancy",
    col.REGISTERS: "registers",  # contracts: literal (the label)
}
# A share whose base can be 0 (no shared-memory wavefronts: no share) -> the counts
# it shares out and their name: where a side has no share but both sides have the
# counts, the cell says them (hotatomic v1 -> v2: 0 -> 550 conflicts, not "n/a")
SHARE_COUNTS = {
    "smem_conflict_share": (("smem_conflicts_ld", "smem_conflicts_st"), "conflicts"),
}
# Columns shown only where some variant counted any (shared atomics: histograms).
NONZERO_ONLY = frozenset({"smem_conflicts_atom"})
# A finding's metric that one of those columns measures: metric -> column.
SAME_AS_COLUMN = {
    "gpu__time_duration.sum": col.TIME_MEDIAN_US,
    "smsp__inst_executed.sum": "inst_executed",
    "dram__bytes_read.sum + dram__bytes_write.sum": "dram_bytes",
    OCCUPANCY: "achieved_occupancy_pct",
}
# A finding's metric that is a counter of every variant's analysis row: metric ->
# column. Read from the analysis, so a step whose findings quote another metric
# still shows the counter (SGEMM v1 -> v2's load requests, 134 M -> 134 M, were
# "n/a: not measured" where only v0 -> v1's finding quoted them).
COUNTER_COLUMNS = {
    **{metric: column for column, metric in REQUEST_METRICS.items()},
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "global_st_sectors",
}
NOT_CAUSES = ("step_unchanged", "step_not_in_counters", "step_time_only")  # no outline


@dataclass(frozen=True)
class MapRow:
    """One row of the step-change map: a column of the analysis or a finding's metric.

    A column's values are read from the analysis. A stall metric's are
    ``by_variant`` (computed from ``stalls.csv`` for every variant); any other
    metric's are ``by_step``: (step variant) -> (before, after) as the step's
    findings at the map's size recorded them.
    """

    key: str
    label: str
    by_variant: dict[str, float] = field(default_factory=dict)
    by_step: dict[str, tuple[float, float]] = field(default_factory=dict)


def step_findings(findings: pd.DataFrame | None, size: int | None) -> pd.DataFrame:
    """The steps' findings with numbers at ``size`` (primary and secondary)."""
    need = {col.VARIANT, col.ROLE, col.METRIC, col.BEFORE, col.AFTER, col.SIZE}
    if findings is None or findings.empty or size is None or not need <= set(findings):
        return pd.DataFrame(columns=sorted(need))
    rows = findings[(findings[col.SIZE] == size) & findings[col.METRIC].notna()]
    if col.SECTION in rows:
        rows = rows[rows[col.SECTION] == "step"]
    return rows[rows[col.ROLE].isin(["primary", "secondary"])]


def primary_rows(found: pd.DataFrame) -> dict[str, str]:
    """Step variant -> the map row of its primary cause (a column or a metric)."""
    primary = found[found[col.ROLE] == "primary"]
    if col.RULE in primary:
        primary = primary[~primary[col.RULE].isin(NOT_CAUSES)]
    out = {}
    for variant, rows in primary.groupby(col.VARIANT, sort=False):
        metric = str(rows[col.METRIC].iloc[0])
        if metric in SAME_AS_COLUMN:
            out[str(variant)] = SAME_AS_COLUMN[metric]
        elif metric_quantity(metric) is not None:
            out[str(variant)] = metric
    return out


def map_rows(
    rows: pd.DataFrame, found: pd.DataFrame, stalls: pd.DataFrame | None = None
) -> list[MapRow]:
    """The map's rows: the columns measured, then the primary causes' own metrics.

    Args:
        rows: The analysis at the map's size, indexed by variant.
        found: :func:`step_findings` at that size.
        stalls: ``stalls.csv`` at that size (stall metrics for every variant).
    """
    out = [
        MapRow(c, label)
        for c, label in STEP_METRICS.items()
        if c in rows
        and rows[c].notna().any()
        and (c not in NONZERO_ONLY or rows[c].gt(0).any())
    ]
    cycles = _cycles(stalls)
    for metric in dict.fromkeys(primary_rows(found).values()):
        quantity = metric_quantity(metric)
        if metric in STEP_METRICS or quantity is None:
            continue
        if is_stall(metric):
            values = {
                str(v): stall_value(metric, cycles.get(str(v), {}), row)
                for v, row in rows.iterrows()
            }
            out.append(MapRow(metric, quantity.short, by_variant=values))
            continue
        column = COUNTER_COLUMNS.get(metric)
        if column in rows and rows[column].notna().any():
            values = {str(v): float(x) for v, x in rows[column].items()}
            out.append(MapRow(metric, quantity.short, by_variant=values))
            continue
        mine = found[found[col.METRIC] == metric]
        steps = {
            str(r[col.VARIANT]): (float(r[col.BEFORE]), float(r[col.AFTER]))
            for r in mine.to_dict("records")
        }
        out.append(MapRow(metric, quantity.short, by_step=steps))
    return out


def _cycles(stalls: pd.DataFrame | None) -> dict[str, dict[str, float]]:
    """Variant -> reason -> stall cycles per issued instruction."""
    if stalls is None or stalls.empty:
        return {}
    return {
        str(v): dict(zip(g[col.REASON], g[col.CYCLES].astype(float), strict=True))
        for v, g in stalls.groupby(col.VARIANT, sort=False)
    }
