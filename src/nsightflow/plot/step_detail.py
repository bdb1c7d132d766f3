"""One step in detail: the ``step_<variant>`` figure of each step.

Left, the step's before and after over all sizes (median time). Right, the metric
its primary cause names (``findings.csv``) at each profiled size, before and after;
the speedup per size where no primary cause is recorded. The step-change map of
the whole family, and the metric names and units both figures share, are in
:mod:`nsightflow.plot.steps`.
"""

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from nsightflow.plot import data
from nsightflow.plot.perf import size_axis, value_axis
from nsightflow.plot.steps import metric_label, metric_text, primary_metrics
from nsightflow.plot.style import (
    family_variants,
    matplotlib_context,
    time_text,
    variant_handles,
    variant_styles,
)
from nsightflow.plot.svg import TippedFigure, tipped_figure


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
        _time_panel(fig, ax_t, pair, (before, step), styles)
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
            _speedup_panel(fig, ax_m, pair, (before, step), styles)
        fig.legend(
            handles=variant_handles([before, step], ctx),
            loc="outside lower center",
            ncols=2,
        )
        fig.suptitle(f"{ctx['family']['title']}: {before} → {step}")
    return fig


def _time_panel(
    fig: TippedFigure,
    ax: Axes,
    pair: pd.DataFrame,
    step: tuple[str, str],
    styles: dict[str, dict[str, Any]],
) -> None:
    """Left: median time over sizes of the step's before and after, each point tipped."""
    for variant in step:
        rows = pair[pair["variant"] == variant].sort_values("size")
        ax.plot(
            rows["size"],
            rows["time_median_us"],
            color=styles[variant]["color"],
            lw=1.1,
        )
        for row in rows.to_dict("records"):
            (p,) = ax.plot(
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
    value_axis(ax, pair["time_median_us"].tolist(), time_text)
    ax.set_ylabel("median kernel time")
    ax.set_title("time over sizes")


def _speedup_panel(
    fig: TippedFigure,
    ax: Axes,
    pair: pd.DataFrame,
    step: tuple[str, str],
    styles: dict[str, dict[str, Any]],
) -> None:
    """Right, where no primary cause is recorded: the step's speedup at each size."""
    before, after = step
    speedup = pair.pivot_table(
        index="size",
        columns="variant",
        values="time_median_us",
        aggfunc="first",
    )
    if {before, after} <= set(speedup.columns):
        ratio = (speedup[before] / speedup[after]).dropna()
        x = np.arange(len(ratio))
        bars = ax.bar(x, ratio, color=styles[after]["color"], width=0.6)
        for n, patch, r in zip(ratio.index, bars.patches, ratio, strict=True):
            fig.tip(patch, f"{after} vs {before}, n = {data.size_text(n)}, {r:.2f}x")
        ax.axhline(1, color="k", lw=0.8)
        ax.set_xticks(x, [data.size_text(n) for n in ratio.index])
        ax.set_xlabel("problem size n")
    ax.set_ylabel("speedup (before time / after time)")
    ax.set_title("speedup per size (no primary cause recorded)")


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
