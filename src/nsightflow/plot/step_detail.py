"""One step in detail: the ``step_<variant>`` figure of each step.

Left, the step's before and after over all sizes (median time). Right, the quantity
its primary cause names (``findings.csv``) before and after, at one size: the largest
profiled size at which the step has a primary cause with a number. The panel is
titled with the cause and the size, its axis with the quantity and unit
(:mod:`nsightflow.plot.quantity`), and each bar carries its value, so a bar of 0
still reads as one. A step with no such cause shows its speedup at each size
instead. The family's step-change map is in :mod:`nsightflow.plot.steps`.
"""

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.config_parts import config_carries
from nsightflow.i18n import CATALOGUE, T
from nsightflow.plot import data
from nsightflow.plot.curves import coincide_notes
from nsightflow.plot.fit import figure_legend, fit_texts
from nsightflow.plot.perf import size_axis, time_panel
from nsightflow.plot.quantity import Quantity, metric_quantity
from nsightflow.plot.steps import ratio_cell
from nsightflow.plot.style import (
    family_variants,
    matplotlib_context,
    short_name,
    variant_handles,
    variant_styles,
)
from nsightflow.plot.svg import TippedFigure, tipped_figure


@dataclass(frozen=True)
class Cause:
    """A step's primary cause at one size, with the numbers the panel draws."""

    rule: str
    size: int
    quantity: Quantity
    before: float
    after: float
    threshold: float = math.nan  # the line a "no change" verdict applied (%)


def mechanism_name(rule: str) -> str:
    """The cause's name in words (the report's English name for it)."""
    key = f"mech_{rule}"
    return T(key) if key in CATALOGUE else rule.replace("_", " ")


def primary_cause(findings: pd.DataFrame | None, step: str) -> Cause | None:
    """The step's primary cause at the largest size where it has a number."""
    need = {
        col.VARIANT,
        col.ROLE,
        col.METRIC,
        col.BEFORE,
        col.AFTER,
        col.SIZE,
        col.RULE,
    }
    if findings is None or findings.empty or not need <= set(findings):
        return None
    rows = findings[(findings[col.VARIANT] == step) & (findings[col.ROLE] == "primary")]
    if col.SECTION in rows:
        rows = rows[rows[col.SECTION] == "step"]
    for row in rows.sort_values(col.SIZE, ascending=False).to_dict("records"):
        quantity = metric_quantity(str(row[col.METRIC]))
        before = pd.to_numeric(row[col.BEFORE], errors="coerce")
        after = pd.to_numeric(row[col.AFTER], errors="coerce")
        line = pd.to_numeric(pd.Series([row.get(col.THRESHOLD)]), errors="coerce")[0]
        if quantity is not None and math.isfinite(before) and math.isfinite(after):
            return Cause(
                str(row[col.RULE]), int(row[col.SIZE]), quantity, before, after, line
            )
    return None


def step_figure(
    analysis: pd.DataFrame,
    ctx: dict[str, Any],
    step: str,
    findings: pd.DataFrame | None = None,
    configs: pd.DataFrame | None = None,
) -> TippedFigure:
    """One step: before and after over sizes, and its primary cause at one size.

    ``configs``: the sweep's timings; where the step's configuration change is most
    of it (:func:`~nsightflow.diagnosis.config_parts.config_carries`), the panel's
    title names the configuration as its primary part.
    """
    with matplotlib_context():
        before = next(
            str(v[col.IMPROVES_ON]) for v in ctx["variants"] if v[col.NAME] == step
        )
        fig = tipped_figure(8.5, 3.6)
        ax_t, ax_m = fig.subplots(1, 2)
        pair = data.timed(analysis)
        pair = pair[pair[col.VARIANT].isin([before, step])]
        size_axis(ax_t, [int(n) for n in analysis[col.SIZE].unique()])
        same = time_panel(fig, ax_t, pair, ctx, iqr=False)
        ax_t.set_title("time over sizes")
        cause = primary_cause(findings, step)
        if cause is not None:
            carried = _carried(analysis, ctx, (before, step), cause.size, configs)
            _cause_panel(fig, ax_m, cause, (before, step), ctx)
            if carried is not None:
                ax_m.set_title(config_title(cause, *carried))
        else:
            _speedup_panel(fig, ax_m, pair, (before, step), ctx)
        figure_legend(
            fig,
            variant_handles([before, step], ctx, same) + coincide_notes(same),
            ncols=3,
        )
        fig.suptitle(f"{ctx['family']['title']}: {before} → {step}")
        fit_texts(fig)
    return fig


def _cause_panel(
    fig: TippedFigure,
    ax: Axes,
    cause: Cause,
    step: tuple[str, str],
    ctx: dict[str, Any],
) -> None:
    """Right: the primary cause's quantity, before and after, at its size."""
    styles = variant_styles(family_variants(ctx))
    values = (cause.before, cause.after)
    bars = ax.bar(
        [0, 1], values, 0.55, color=[styles[v]["color"] for v in step], zorder=2
    )
    top = max(max(values), 0.0)
    for patch, variant, value in zip(bars.patches, step, values, strict=True):
        fig.tip(
            patch,
            f"{variant}, n = {data.size_text(cause.size)}, "
            f"{cause.quantity.short}: {cause.quantity.text(value)}",
        )
        ax.annotate(
            cause.quantity.text(value),
            (patch.get_x() + patch.get_width() / 2, max(value, 0.0)),
            xytext=(0, 2),
            textcoords="offset points",
            ha="center",
            va="bottom",
            fontsize=7.5,
        )
    ax.set_ylim(0, (top or 1.0) * 1.22)  # room for the value above the higher bar
    ax.set_xlim(-0.6, 1.6)
    ax.set_xticks(
        [0, 1], [f"{short_name(step[0])} (before)", f"{short_name(step[1])} (after)"]
    )
    ax.yaxis.set_major_formatter(lambda v, _p: cause.quantity.tick_text(v))
    ax.set_ylabel(cause.quantity.label)
    ax.grid(False, axis="x")
    ax.set_title(cause_title(cause))


def cause_title(cause: Cause) -> str:
    """The panel's title: the cause, the metric it plots, the size and the ratio.

    A step without a measurable change says so with the line it did not cross, so
    the bars of two noisy times never read as a gain.
    """
    n = data.size_text(cause.size)
    ratio = ratio_cell(cause.before, cause.after)[1]
    if cause.rule == "step_unchanged":
        line = (
            f", within {cause.threshold:.1f}%" if math.isfinite(cause.threshold) else ""
        )
        return (
            f"no measurable change at n = {n}: {cause.quantity.short} ({ratio}{line})"
        )
    return (
        f"primary cause at n = {n}: {mechanism_name(cause.rule)}, "
        f"plotted: {cause.quantity.short} ({ratio})"
    )


def _carried(
    analysis: pd.DataFrame,
    ctx: dict[str, Any],
    step: tuple[str, str],
    n: int,
    configs: pd.DataFrame | None,
) -> tuple[float, float] | None:
    """The configuration's part of the step at ``n`` and the change, where it is most.

    (us, us); None where the sweep does not split the step or the code is the larger.
    """
    params = {v[col.NAME]: v.get(col.PARAMS) or {} for v in ctx["variants"]}
    timed = analysis[analysis[col.SIZE] == n].set_index(col.VARIANT)[col.TIME_MEDIAN_US]
    if not all(v in timed.index for v in step):
        return None
    times = (float(timed[step[0]]), float(timed[step[1]]))
    pair = (params.get(step[0], {}), params.get(step[1], {}))
    config = config_carries(configs, pair, step[1], n, times)
    return None if config is None else (config, times[1] - times[0])


def config_title(cause: Cause, config: float, change: float) -> str:
    """The title of a step whose configuration change carries most of its change.

    SGEMM ``v7_double_buffer`` at n = 4096: 254 of the 353 us saved are the
    configuration's (the sweep's two timings of v7), the double buffering 92.1 us;
    ncu's counters plotted are of code and configuration together.
    """
    way = "saved" if change < 0 else "added"
    return (
        f"primary part at n = {data.size_text(cause.size)}: the configuration, "
        f"{abs(config):,.0f} of the {abs(change):,.0f} us {way}; plotted (code and "
        f"configuration): {cause.quantity.short} "
        f"({ratio_cell(cause.before, cause.after)[1]})"
    )


def _speedup_panel(
    fig: TippedFigure,
    ax: Axes,
    pair: pd.DataFrame,
    step: tuple[str, str],
    ctx: dict[str, Any],
) -> None:
    """Right, where no primary cause is recorded: the step's speedup at each size."""
    before, after = step
    speedup = pair.pivot_table(
        index=col.SIZE, columns=col.VARIANT, values=col.TIME_MEDIAN_US, aggfunc="first"
    )
    if {before, after} <= set(speedup.columns):
        ratio = (speedup[before] / speedup[after]).dropna()
        x = np.arange(len(ratio))
        colour = variant_styles(family_variants(ctx))[after]["color"]
        bars = ax.bar(x, ratio, color=colour, width=0.6)
        for n, patch, r in zip(ratio.index, bars.patches, ratio, strict=True):
            fig.tip(patch, f"{after} vs {before}, n = {data.size_text(n)}, {r:.2f}x")
        ax.axhline(1, color="k", lw=0.8)
        ax.set_xticks(x, [data.size_text(n) for n in ratio.index])
        ax.set_xlabel("problem size n")
    ax.yaxis.set_major_formatter(lambda v, _p: f"{v:g}x")
    ax.set_ylabel("speedup [before time / after time]")
    ax.set_title("speedup per size (no primary cause with a number)")
