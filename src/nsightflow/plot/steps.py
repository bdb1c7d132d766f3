"""What each step changed: the family's step-change map, and what step figures share.

``step_changes``: a grid of steps (columns) by metrics (rows), each cell the ratio
after / before at the largest profiled size, coloured on a log scale and written
out; a change from 0 (``0 -> 1.2M``) or to 0 (``-> 0``) is a hatched, labelled cell,
never dropped. Rows: time, the counters of :data:`STEP_METRICS` (issued warp
instructions among them) and the metric each step's primary cause names in
``findings.csv`` (where the diagnosis stage wrote one); a step's primary cell is
outlined.

``step_<variant>``, one figure per step, is drawn by
:mod:`nsightflow.plot.step_detail` with the metric names and units defined here.
"""

import math
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle

from nsightflow.plot import data
from nsightflow.plot.style import (
    bytes_text,
    count_text,
    matplotlib_context,
    short_name,
    time_text,
)
from nsightflow.plot.svg import TippedFigure, tipped_figure

# Metrics whose change per step the step-changes map shows: column -> label.
STEP_METRICS = {
    "time_median_us": "time",
    "inst_executed": "issued warp instructions",
    "dram_bytes": "DRAM bytes",
    "l2_bytes_moved": "L2 bytes",
    "l1_bytes_moved": "L1 bytes (global ld/st)",
    "sectors_per_request": "sectors / request",
    "smem_conflict_share": "smem conflict share",
    "achieved_occupancy_pct": "achieved occupancy",
    "registers": "registers",
}
RATIO_SPAN = 3.0  # colours saturate at 2^-3 .. 2^3 (1/8x .. 8x)
CMAP = "PuOr_r"  # diverging, colour-blind safe: orange = more, purple = less


def steps_of(ctx: dict[str, Any]) -> list[tuple[str, str]]:
    """(before, after) of every step, in manifest order."""
    return [
        (str(v["improves_on"]), str(v["name"]))
        for v in ctx["variants"]
        if v["improves_on"]
    ]


def primary_metrics(findings: pd.DataFrame | None) -> dict[str, str]:
    """Step variant -> the metric its primary finding names (findings.csv)."""
    if (
        findings is None
        or findings.empty
        or not {"role", "metric", "variant"} <= set(findings)
    ):
        return {}
    primary = findings[(findings["role"] == "primary") & findings["metric"].notna()]
    primary = primary[primary["metric"].astype(str) != ""]
    return {
        str(v): str(rows["metric"].iloc[0])
        for v, rows in primary.groupby("variant", sort=False)
    }


def metric_label(column: str) -> str:
    """How a figure names a metric column."""
    return STEP_METRICS.get(column, column.replace("_", " "))


def metric_text(column: str, value: float) -> str:
    """A value of a metric column with the unit its name implies."""
    if not math.isfinite(value):
        return "n/a"
    if column.endswith("_us"):
        return time_text(value)
    if column.endswith("_bytes") or column.endswith("_bytes_moved"):
        return bytes_text(value)
    if column.endswith("_pct"):
        return f"{value:.1f}%"
    if column.endswith("_share"):
        return f"{100 * value:.1f}%"
    return count_text(value)


def ratio_cell(before: float, after: float) -> tuple[float, str, bool]:
    """Colour value (log2 ratio), text and hatch flag of one after / before cell."""
    if not (math.isfinite(before) and math.isfinite(after)):
        return math.nan, "", False
    if before == 0 and after == 0:
        return 0.0, "0 = 0", False
    if before == 0:
        return RATIO_SPAN, f"0 → {count_text(after)}", True
    if after == 0:
        return -RATIO_SPAN, "→ 0", True
    ratio = after / before
    if ratio < 0.1:  # 1/170x reads better than 0.0059x
        text = f"1/{1 / ratio:,.0f}x"
    else:
        text = f"{ratio:.2g}x" if ratio < 10 else f"{ratio:,.0f}x"
    return math.log2(ratio), text, False


def step_changes_figure(
    analysis: pd.DataFrame, ctx: dict[str, Any], findings: pd.DataFrame | None = None
) -> TippedFigure:
    """The after / before map of every step at the largest profiled size."""
    with matplotlib_context():
        steps = steps_of(ctx)
        prof = data.profiled(analysis)
        size = int(prof["size"].max()) if not prof.empty else None
        rows = prof[prof["size"] == size].set_index("variant") if size else prof
        primary = primary_metrics(findings)
        extra = [
            m
            for m in dict.fromkeys(primary.values())
            if m in rows and m not in STEP_METRICS
        ]
        metrics = [
            m for m in [*STEP_METRICS, *extra] if m in rows and rows[m].notna().any()
        ]
        steps = [(b, a) for b, a in steps if b in rows.index and a in rows.index]
        fig = tipped_figure(
            max(6.5, 2.6 + 0.78 * len(steps)), 1.7 + 0.3 * max(len(metrics), 1)
        )
        ax = fig.subplots()
        if not steps or not metrics:
            ax.text(0.5, 0.5, "no profiled steps", ha="center", transform=ax.transAxes)
            ax.set_axis_off()
            return fig
        norm = Normalize(-RATIO_SPAN, RATIO_SPAN)
        for j, (before, after) in enumerate(steps):
            for i, m in enumerate(metrics):
                b, a = _value(rows, before, m), _value(rows, after, m)
                value, text, hatch = ratio_cell(b, a)
                _cell(fig, ax, (i, j), value, text, hatch, norm)
                fig.tip(
                    ax.patches[-1],
                    f"{before} → {after}, n = {data.size_text(size)}, "
                    f"{metric_label(m)}: {metric_text(m, b)} → {metric_text(m, a)}",
                )
                if primary.get(after) == m:
                    ax.add_patch(
                        Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, lw=1.8, ec="k")
                    )
        _map_axes(ax, steps, metrics)
        _ratio_colorbar(fig, ax, norm)
        ax.set_title(
            f"{ctx['family']['title']}: what each step changed, n = {data.size_text(size)}"
        )
    return fig


def _map_axes(ax: Axes, steps: list[tuple[str, str]], metrics: list[str]) -> None:
    """The map's axes: one column per step, one row per metric, no frame or grid."""
    ax.set_xlim(-0.5, len(steps) - 0.5)
    ax.set_ylim(len(metrics) - 0.5, -0.5)
    ax.set_xticks(
        range(len(steps)), [f"{short_name(b)}→{short_name(a)}" for b, a in steps]
    )
    ax.set_yticks(range(len(metrics)), [metric_label(m) for m in metrics])
    ax.tick_params(length=0)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xlabel("step (before → after variant)")


def _ratio_colorbar(fig: TippedFigure, ax: Axes, norm: Normalize) -> None:
    """The colour scale of the after / before ratios, ticked in powers of two."""
    from matplotlib.cm import ScalarMappable

    mappable = ax.collections[0] if ax.collections else None
    bar = fig.colorbar(
        mappable or ScalarMappable(norm, CMAP),
        ax=ax,
        location="bottom",
        shrink=0.7,
        aspect=40,
        pad=0.02,
    )
    ticks = list(range(-int(RATIO_SPAN), int(RATIO_SPAN) + 1))
    bar.set_ticks(
        ticks, labels=[f"{2.0**t:g}x" if t >= 0 else f"1/{2**-t}x" for t in ticks]
    )
    bar.set_label(
        "after / before\n(hatched: from or to 0; outlined: the step's primary cause)"
    )


def _cell(
    fig: TippedFigure,
    ax: Axes,
    at: tuple[int, int],
    value: float,
    text: str,
    hatch: bool,
    norm: Normalize,
) -> None:
    """One coloured, written cell of the step-changes map."""
    import matplotlib

    i, j = at
    cmap = matplotlib.colormaps[CMAP]
    colour = cmap(norm(value)) if math.isfinite(value) else (0.93, 0.93, 0.93, 1.0)
    ax.add_patch(
        Rectangle(
            (j - 0.5, i - 0.5),
            1,
            1,
            facecolor=colour,
            edgecolor="white",
            lw=1,
            hatch="////" if hatch else None,
        )
    )
    if not math.isfinite(value):
        text = "n/a"
    dark = math.isfinite(value) and abs(norm(value) - 0.5) > 0.3
    ax.text(
        j,
        i,
        text,
        ha="center",
        va="center",
        fontsize=7,
        color="white" if dark else "black",
        bbox={"boxstyle": "round,pad=0.1", "fc": colour, "ec": "none"}
        if hatch
        else None,
    )


def _value(rows: pd.DataFrame, variant: str, column: str) -> float:
    """One cell of a frame indexed by variant, as a float (NaN when missing)."""
    value: Any = rows.loc[variant, column]
    return float(value) if pd.notna(value) else math.nan
