"""What each step changed: the family's step-change map and one figure per step.

``step_changes``: a grid of steps (columns) by metrics (rows), each cell the ratio
after / before at the largest profiled size, coloured on a log scale and written
out; a change from 0 (``0 -> 1.2M``) or to 0 (``-> 0``) is a hatched, labelled cell,
never dropped. Rows: time, the counters of :data:`STEP_METRICS` (issued warp
instructions among them) and the metric each step's primary cause names in
``findings.csv`` (where the diagnosis stage wrote one); a step's primary cell is
outlined.

``step_<variant>``: the step's before and after over all sizes (time), and the
metric its primary cause names at each profiled size, before and after (the
speedup per size where no primary cause is recorded).
"""

import math
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle

from nsightflow.plot import data
from nsightflow.plot.perf import size_axis, value_axis
from nsightflow.plot.style import (
    bytes_text,
    count_text,
    family_variants,
    matplotlib_context,
    short_name,
    time_text,
    variant_handles,
    variant_styles,
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
        cells = np.full((len(metrics), len(steps)), np.nan)
        for j, (before, after) in enumerate(steps):
            for i, m in enumerate(metrics):
                b, a = _value(rows, before, m), _value(rows, after, m)
                value, text, hatch = ratio_cell(b, a)
                cells[i, j] = value
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
        mappable = ax.collections[0] if ax.collections else None
        from matplotlib.cm import ScalarMappable

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
        ax.set_title(
            f"{ctx['family']['title']}: what each step changed, n = {data.size_text(size)}"
        )
    return fig


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


def _primary_values(
    analysis: pd.DataFrame,
    findings: pd.DataFrame | None,
    before: str,
    after: str,
    metric: str,
) -> pd.DataFrame:
    """Before and after values of ``metric`` at each size where both exist."""
    if metric in analysis:
        pivot = analysis[analysis["variant"].isin([before, after])].pivot_table(
            index="size", columns="variant", values=metric, aggfunc="first"
        )
        if {before, after} <= set(pivot.columns):
            return pivot[[before, after]].dropna()
    if findings is not None and {"before", "after", "size"} <= set(findings):
        rows = findings[
            (findings["variant"] == after) & (findings["role"] == "primary")
        ]
        out = pd.DataFrame(
            {
                before: pd.to_numeric(rows["before"], errors="coerce").to_numpy(),
                after: pd.to_numeric(rows["after"], errors="coerce").to_numpy(),
            },
            index=rows["size"].to_numpy(),
        )
        return out.dropna()
    return pd.DataFrame(columns=[before, after])


def step_figure(
    analysis: pd.DataFrame,
    ctx: dict[str, Any],
    step: str,
    findings: pd.DataFrame | None = None,
) -> TippedFigure:
    """One step: before and after over sizes, and its primary cause's metric."""
    with matplotlib_context():
        before = next(
            str(v["improves_on"]) for v in ctx["variants"] if v["name"] == step
        )
        styles = variant_styles(family_variants(ctx))
        fig = tipped_figure(8.5, 3.6)
        ax_t, ax_m = fig.subplots(1, 2)
        ok = data.timed(analysis)
        pair = ok[ok["variant"].isin([before, step])]
        size_axis(ax_t, [int(n) for n in analysis["size"].unique()])
        for variant in (before, step):
            rows = pair[pair["variant"] == variant].sort_values("size")
            ax_t.plot(
                rows["size"],
                rows["time_median_us"],
                color=styles[variant]["color"],
                lw=1.1,
            )
            for row in rows.to_dict("records"):
                (p,) = ax_t.plot(
                    [row["size"]],
                    [row["time_median_us"]],
                    ls="none",
                    ms=4.5,
                    **styles[variant],
                )
                fig.tip(
                    p,
                    f"{variant}, n = {data.size_text(row['size'])}, "
                    f"{time_text(float(row['time_median_us']))}",
                )
        value_axis(ax_t, pair["time_median_us"].tolist(), time_text)
        ax_t.set_ylabel("median kernel time")
        ax_t.set_title("time over sizes")
        metric = primary_metrics(findings).get(step)
        values = (
            _primary_values(analysis, findings, before, step, metric)
            if metric
            else pd.DataFrame()
        )
        if metric and not values.empty:
            _bars(fig, ax_m, values, metric, styles)
            ax_m.set_title(f"primary cause: {metric_label(metric)}")
        else:
            speedup = pair.pivot_table(
                index="size",
                columns="variant",
                values="time_median_us",
                aggfunc="first",
            )
            if {before, step} <= set(speedup.columns):
                ratio = (speedup[before] / speedup[step]).dropna()
                x = np.arange(len(ratio))
                bars = ax_m.bar(x, ratio, color=styles[step]["color"], width=0.6)
                for n, patch, r in zip(ratio.index, bars.patches, ratio, strict=True):
                    fig.tip(
                        patch, f"{step} vs {before}, n = {data.size_text(n)}, {r:.2f}x"
                    )
                ax_m.axhline(1, color="k", lw=0.8)
                ax_m.set_xticks(x, [data.size_text(n) for n in ratio.index])
                ax_m.set_xlabel("problem size n")
            ax_m.set_ylabel("speedup (before time / after time)")
            ax_m.set_title("speedup per size (no primary cause recorded)")
        fig.legend(
            handles=variant_handles([before, step], ctx),
            loc="outside lower center",
            ncols=2,
        )
        fig.suptitle(f"{ctx['family']['title']}: {before} → {step}")
    return fig


def _bars(
    fig: TippedFigure,
    ax: Axes,
    values: pd.DataFrame,
    metric: str,
    styles: dict[str, dict[str, Any]],
) -> None:
    """Before / after bars of one metric at each profiled size."""
    x = np.arange(len(values))
    for k, variant in enumerate(values.columns):
        bars = ax.bar(
            x + (k - 0.5) * 0.38,
            values[variant],
            0.38,
            color=styles[str(variant)]["color"],
        )
        for n, patch, v in zip(
            values.index, bars.patches, values[variant], strict=True
        ):
            fig.tip(
                patch, f"{variant}, n = {data.size_text(n)}, {metric_text(metric, v)}"
            )
    ax.set_xticks(x, [data.size_text(n) for n in values.index])
    ax.set_xlabel("problem size n (profiled)")
    ax.set_ylabel(metric_label(metric))
    ax.yaxis.set_major_formatter(lambda v, _p: metric_text(metric, v))


def _value(rows: pd.DataFrame, variant: str, column: str) -> float:
    """One cell of a frame indexed by variant, as a float (NaN when missing)."""
    value: Any = rows.loc[variant, column]
    return float(value) if pd.notna(value) else math.nan
