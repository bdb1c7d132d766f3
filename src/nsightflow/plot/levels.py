"""Bytes moved at each memory level per variant, against the ideal traffic.

Horizontal bars (variant names read in full, never overlapping), one group per
variant at the largest profiled size, on a log axis when the bytes span more than
:data:`nsightflow.plot.perf.LOG_SPAN`; the ideal (each byte once) is a dashed line.
"""

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from nsightflow.contracts import columns as col
from nsightflow.plot import data
from nsightflow.plot.fit import figure_legend, fit_texts
from nsightflow.plot.perf import LOG_SPAN
from nsightflow.plot.style import (
    bytes_text,
    family_variants,
    log_limits,
    matplotlib_context,
    unit_axis,
)
from nsightflow.plot.svg import TippedFigure, tipped_figure

LEVEL_BARS = (  # column, label, colour (Tol's "bright" blue, cyan, green)
    ("dram_bytes", "DRAM", "#4477AA"),
    ("l2_bytes_moved", "L2", "#66CCEE"),
    ("l1_bytes_moved", "L1 (global ld/st)", "#228833"),
)


def bytes_by_level_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> TippedFigure:
    """Bytes at DRAM, L2 and L1 per variant (largest profiled size) vs the ideal."""
    with matplotlib_context():
        prof = data.profiled(analysis)
        size = int(prof[col.SIZE].max()) if not prof.empty else None
        rows = prof[prof[col.SIZE] == size].set_index(col.VARIANT) if size else prof
        order = [v for v in family_variants(ctx) if v in rows.index]
        rows = rows.loc[order]
        fig = tipped_figure(7.5, max(2.8, 0.42 * len(rows) + 1.6))
        ax = fig.subplots()
        if rows.empty:
            ax.text(0.5, 0.5, "no ncu data", ha="center", transform=ax.transAxes)
            return fig
        y = np.arange(len(rows))
        values = _level_bars(fig, ax, rows, y, size)
        ideal = float(rows["ideal_bytes"].iloc[0])
        ax.axvline(
            ideal,
            color="k",
            ls="--",
            lw=1,
            label=f"ideal (each byte once): {bytes_text(ideal)}",
        )
        _bytes_axis(ax, [*values, ideal])
        unit_axis(ax.xaxis, bytes_text)
        ax.set_yticks(y, list(rows.index))
        ax.invert_yaxis()
        ax.grid(False, axis="y")
        figure_legend(fig, ax.get_legend_handles_labels()[0])
        ax.set_title(
            f"{ctx['family']['title']}: bytes per memory level, "
            f"n = {data.size_text(size)}"
        )
        fit_texts(fig)
    return fig


def _level_bars(
    fig: TippedFigure,
    ax: Axes,
    rows: pd.DataFrame,
    y: np.ndarray,
    size: int | None,
) -> list[float]:
    """One bar per memory level and variant, grouped around ``y``, each with a tip.

    Returns:
        The bytes drawn (for the axis limits).
    """
    levels = [lv for lv in LEVEL_BARS if lv[0] in rows and rows[lv[0]].notna().any()]
    height = 0.8 / max(len(levels), 1)
    values: list[float] = []
    for i, (column, label, colour) in enumerate(levels):
        bars = ax.barh(
            y + (i - (len(levels) - 1) / 2) * height,
            rows[column],
            height,
            color=colour,
            label=label,
        )
        for variant, patch, value in zip(
            rows.index, bars.patches, rows[column], strict=True
        ):
            if np.isfinite(value):
                fig.tip(
                    patch,
                    f"{variant}, n = {data.size_text(size)}, "
                    f"{label}: {bytes_text(value)}",
                )
        values += rows[column].dropna().tolist()
    return values


def _bytes_axis(ax: Axes, values: list[float]) -> None:
    """The bytes axis: log scale when ``values`` span more than :data:`LOG_SPAN`."""
    positive = [v for v in values if v > 0]
    if positive and max(positive) / min(positive) > LOG_SPAN:
        ax.set_xscale("log")
        ax.set_xlim(*log_limits(positive, 1.5))
        ax.set_xlabel("bytes moved (ncu), log scale")
    else:
        ax.set_xlim(0, max(positive, default=1.0) * 1.1)
        ax.set_xlabel("bytes moved (ncu)")
