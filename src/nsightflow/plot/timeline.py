"""The timeline figure of a family: copies and kernel of each variant at one size.

Left, the traced sequence of every variant on one time axis (copy in, memset,
kernel, copy out as bars; a kernel too short to see is drawn at a minimum width,
outlined, and its duration is written after the row); right, the duration of each phase on a log scale. Built with the
object API like :mod:`nsightflow.plot.figures`; only :func:`write_figure` saves.
"""

from pathlib import Path
from typing import Any

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from nsightflow.analysis.timeline import key_size
from nsightflow.contracts import columns as col
from nsightflow.contracts.bundle import Bundle
from nsightflow.plot.fit import figure_legend, fit_texts
from nsightflow.plot.style import matplotlib_context, new_figure, unit_axis
from nsightflow.plot.svg import save

# Phases in sequence order: kind -> (label, colour).
PHASES = {
    "memcpy_htod": ("copy in (HtoD)", "#4c72b0"),
    "memset": ("memset", "#8c8c8c"),
    "kernel": ("kernel", "#dd8452"),  # contracts: literal (a kind)
    "memcpy_dtoh": ("copy out (DtoH)", "#55a868"),
}
OTHER = "#c44e52"  # any other copy


MIN_BAR = 0.01  # a bar narrower than this share of the time axis is drawn this wide


def _gantt(ax: matplotlib.axes.Axes, rows: pd.DataFrame, y: int, span: float) -> None:
    """One variant's sequence as bars on row ``y`` (times in ms), the kernel's named.

    ``span``: the time axis's length (ms). A phase shorter than :data:`MIN_BAR` of it
    is widened to that; the kernel is outlined and drawn over the copies, so a 3 us
    kernel beside 20 ms copies stays visible; its duration is written after the row's last bar, clear of every bar.
    """
    for kind, group in rows.groupby(col.KIND, sort=False):
        colour = PHASES.get(str(kind), ("", OTHER))[1]
        spans = [
            (s / 1e6, max((e - s) / 1e6, MIN_BAR * span))
            for s, e in zip(group[col.START_NS], group[col.END_NS], strict=True)
        ]
        on_top: dict[str, Any] = {"edgecolor": "black", "linewidth": 0.6, "zorder": 3}
        ax.broken_barh(
            spans, (y - 0.35, 0.7), color=colour, **(on_top if kind == "kernel" else {})
        )
    kernels = rows[rows[col.KIND] == "kernel"]
    if not kernels.empty:
        took = (kernels[col.END_NS] - kernels[col.START_NS]).sum() / 1e6
        ax.annotate(
            f"kernel {took:.3g} ms",
            (rows[col.END_NS].max() / 1e6, y),
            xytext=(4, 0),
            textcoords="offset points",
            va="center",
            fontsize=7,
        )


def _durations(ax: matplotlib.axes.Axes, summary: pd.DataFrame) -> None:
    """Duration of each phase per variant, grouped bars on a log axis."""
    columns = {
        "memcpy_htod": col.HTOD_NS,
        "memset": col.MEMSET_NS,
        "kernel": "kernel_ns",  # contracts: literal (a kind and its column)
        "memcpy_dtoh": col.DTOH_NS,
    }
    y = np.arange(len(summary))
    height = 0.8 / len(columns)
    for i, (kind, column) in enumerate(columns.items()):
        label, colour = PHASES[kind]
        values = summary[column].astype(float) / 1e6
        ax.barh(
            y + (i - 1.5) * height,
            values.where(values > 0),
            height,
            color=colour,
            label=label,
        )
    ax.set_xscale("log")
    unit_axis(ax.xaxis, lambda v: f"{v:g}")
    ax.set_yticks(y, [""] * len(y))
    ax.invert_yaxis()
    ax.set_xlabel("duration [ms, log scale]")


def timeline_figure(table: pd.DataFrame, summary: pd.DataFrame, family: str) -> Figure:
    """The family's timeline at its largest traced size; a note when none exists."""
    with matplotlib_context():
        size = key_size(summary)
        shown = (
            summary[summary[col.SIZE] == size].reset_index(drop=True)
            if size is not None
            else summary.iloc[0:0]
        )
        fig = new_figure(10, 1.6 + 0.42 * max(len(shown), 1))
        ax_t, ax_d = fig.subplots(1, 2, width_ratios=[3, 2])
        if size is None:
            for ax in (ax_t, ax_d):
                ax.text(
                    0.5,
                    0.5,
                    "no timeline recorded",
                    ha="center",
                    transform=ax.transAxes,
                )
            return fig
        rows = table[table[col.SIZE] == size]
        span = float(rows[col.END_NS].max() - rows[col.START_NS].min()) / 1e6
        for y, variant in enumerate(shown[col.VARIANT]):
            _gantt(ax_t, rows[rows[col.VARIANT] == variant], y, span)
        ax_t.set_xlim(0, span * 1.28)  # room for the kernel's duration after a row
        ax_t.set_yticks(range(len(shown)), shown[col.VARIANT])
        ax_t.set_ylim(len(shown) - 0.5, -0.5)
        ax_t.set_xlabel("time from the first copy [ms]")
        _durations(ax_d, shown)
        backend = shown[col.BACKEND].dropna()
        how = f" ({backend.iloc[0]})" if not backend.empty else ""
        fig.suptitle(f"{family}: copies and kernel at n = {size}{how}")
        figure_legend(fig, ax_d.get_legend_handles_labels()[0])
        fit_texts(fig)
    return fig


def write_figure(analysis_dir: Path, out: Path, family: str) -> Path:
    """Build the timeline figure from ``timeline.csv`` / ``timeline_summary.csv``."""
    bundle = Bundle(analysis_dir)
    out.parent.mkdir(parents=True, exist_ok=True)
    figure = timeline_figure(bundle.timeline, bundle.timeline_summary, family)
    save(figure, out.parent, out.stem)
    return out
