"""Where warps wait: how much (cycles per issued instruction) and the mix of reasons.

Left, the total warp stall cycles per issued instruction of each variant and
profiled size on a log axis, so a kernel 50x slower per instruction does not
flatten the rest. Right, each row's stall reasons as shares of that total, in the
fixed order and colours of :data:`nsightflow.plot.style.STALL_COLOURS` (the same in
every family); reasons outside that list are summed as "other".
"""

from typing import Any, cast

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from nsightflow.contracts import columns as col
from nsightflow.plot import data
from nsightflow.plot.fit import figure_legend, fit_texts
from nsightflow.plot.perf import LOG_SPAN
from nsightflow.plot.style import (
    STALL_COLOURS,
    family_variants,
    log_limits,
    matplotlib_context,
    unit_axis,
    variant_styles,
)
from nsightflow.plot.svg import TippedFigure, tipped_figure


def stall_table(stalls: pd.DataFrame, variants: list[str]) -> pd.DataFrame:
    """Cycles per issued instruction by (variant, size) row and fixed reason column.

    Rows follow the manifest's variant order, then size; columns are the reasons
    of STALL_COLOURS that occur, in that order, with "other" last.
    """
    known = [r for r in STALL_COLOURS if r != "other"]
    frame = stalls.assign(
        reason=stalls[col.REASON].where(stalls[col.REASON].isin(known), "other")
    )
    table = frame.pivot_table(
        index=[col.VARIANT, col.SIZE],
        columns=col.REASON,
        values=col.CYCLES,
        aggfunc="sum",
    ).fillna(0.0)
    order = {v: i for i, v in enumerate(variants)}
    rows = sorted(table.index, key=lambda vs: (order.get(vs[0], len(order)), vs[1]))
    columns = [r for r in STALL_COLOURS if r in table.columns and table[r].sum() > 0]
    return table.loc[rows, columns]


def stalls_figure(stalls: pd.DataFrame, ctx: dict[str, Any]) -> TippedFigure:
    """Total stall cycles per issued instruction (log) and the share of each reason."""
    with matplotlib_context():
        rows = (
            stalls.groupby([col.VARIANT, col.SIZE]).ngroups if not stalls.empty else 1
        )
        fig = tipped_figure(8.5, max(2.8, 0.24 * rows + 1.9))
        ax_total, ax_mix = fig.subplots(1, 2, sharey=True, width_ratios=[2, 3])
        if stalls.empty:
            for ax in (ax_total, ax_mix):
                ax.text(
                    0.5,
                    0.5,
                    "no ncu data (profiling off or failed)",
                    ha="center",
                    transform=ax.transAxes,
                )
            return fig
        variants = family_variants(ctx)
        table = stall_table(stalls, variants)
        y = np.arange(len(table))
        _total_panel(fig, ax_total, table, y, variant_styles(variants))
        _mix_panel(fig, ax_mix, table, y)
        figure_legend(fig, ax_mix.get_legend_handles_labels()[0], ncols=6)
        fig.suptitle(f"{ctx['family']['title']}: where warps wait")
        fit_texts(fig)
    return fig


def _total_panel(
    fig: TippedFigure,
    ax: Axes,
    table: pd.DataFrame,
    y: np.ndarray,
    styles: dict[str, dict[str, Any]],
) -> None:
    """Left: total stall cycles per issued instruction of each row (log if wide)."""
    totals = table.sum(axis=1)
    labels = [f"{v}  n={data.size_text(n)}" for v, n in table.index]
    for i, (key, total) in enumerate(totals.items()):
        variant, size = cast(tuple[str, int], key)
        bar = ax.barh(y[i], total, color=styles[variant]["color"], height=0.7)
        fig.tip(
            bar.patches[0],
            f"{variant}, n = {data.size_text(size)}, "
            f"{total:.3g} stall cycles per issued instruction",
        )
    positive = totals[totals > 0].tolist()
    if positive and max(positive) / min(positive) > LOG_SPAN:
        ax.set_xscale("log")
        ax.set_xlim(*log_limits(positive, 1.5))
        ax.set_xlabel("stall cycles per issued instruction (log)")
    else:
        ax.set_xlim(0, max(positive, default=1.0) * 1.1)
        ax.set_xlabel("stall cycles per issued instruction")
    unit_axis(ax.xaxis, lambda v: f"{v:g}")
    ax.set_yticks(y, labels)
    ax.invert_yaxis()
    ax.set_title("how long warps wait")


def _mix_panel(fig: TippedFigure, ax: Axes, table: pd.DataFrame, y: np.ndarray) -> None:
    """Right: each row's stall reasons as stacked shares of its total, each tipped."""
    totals = table.sum(axis=1)
    shares = table.div(totals.where(totals > 0), axis=0).fillna(0.0)
    left = np.zeros(len(table))
    for reason in table.columns:
        bars = ax.barh(
            y,
            shares[reason],
            left=left,
            height=0.7,
            color=STALL_COLOURS[reason],
            label=reason,
        )
        for i, patch in enumerate(bars.patches):
            if shares[reason].iloc[i] > 0:
                v, n = table.index[i]
                fig.tip(
                    patch,
                    f"{v}, n = {data.size_text(n)}, {reason}: "
                    f"{100 * shares[reason].iloc[i]:.1f}% "
                    f"({table[reason].iloc[i]:.3g} cycles per instruction)",
                )
        left += shares[reason].to_numpy()
    ax.set_xlim(0, 1)
    ax.xaxis.set_major_formatter(lambda x, _p: f"{100 * x:.0f}%")
    ax.set_xlabel("share of the stall cycles, by reason")
    ax.set_title("why they wait")
    ax.tick_params(axis="y", left=False)
    ax.grid(False, axis="y")
