"""Roofline: one panel per profiled size, each variant at every level with a roof.

A variant's FLOP rate (the family's ideal work, its manifest's ``flops``, over ncu's
duration) is drawn against the bytes of each memory level whose roof the ceilings
hold, so its intensity is the algorithm's work per byte moved, the one the bound
and the brief read: ncu's FP32 count would credit a variant for the adds it does
beyond the algorithm's (scan's Kogge-Stone tree, ~10 per element, would sit at 0.72
FLOP/B and above the DRAM roof, where its ideal n adds put it at 0.075). Where the
manifest declares no work, ncu's count stands in. The levels: DRAM (filled marker) under the
measured copy bandwidth and the datasheet DRAM bandwidth; L2 (half-filled) and L1
global (hollow) only where the ceilings hold their roofs (``l2_gbps`` / ``l1_gbps``
measured, ``datasheet_l2_gbps`` / ``datasheet_l1_gbps``). A point is only read
against the roof of its own level: an L1 point beside a DRAM roof alone would seem
to beat the hardware, so without an L1 roof no L1 point is drawn and the legend
says why (the bytes per level are in ``bytes_by_level``). Arrows run from the
variant each step improves on to the step (DRAM points); each DRAM point is
labelled with the variant's short name. For SGEMM, cuBLAS's measured rate is a
horizontal reference line: its bytes, hence its intensity, were not measured, so it
has no point. Each panel draws it at the rate timed at that panel's size (the
ladder's library variant; ceilings.json's at the size its note names), and none at
a size where it was not timed: the n = 8192 rate is no ceiling at n = 1024.
"""

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from nsightflow.contracts import columns as column_names
from nsightflow.plot import data
from nsightflow.plot.fit import figure_legend, fit_texts
from nsightflow.plot.labels import PointLabel, place_labels
from nsightflow.plot.style import (
    bandwidth_text,
    bytes_text,
    family_variants,
    flops_text,
    log_limits,
    matplotlib_context,
    short_name,
    unit_axis,
    variant_handles,
    variant_styles,
)
from nsightflow.plot.svg import TippedFigure, tipped_figure

Fill = Literal["full", "left", "right", "bottom", "top", "none"]


@dataclass(frozen=True)
class Level:
    """A memory level: its bytes column, marker fill and ceiling keys."""

    column: str
    name: str
    fill: Fill
    measured: str  # ceilings key of the measured bandwidth (GB/s)
    datasheet: str  # ceilings key of the datasheet bandwidth (GB/s)


LEVELS = (
    Level("dram_bytes", "DRAM", "full", column_names.COPY_GBPS, "datasheet_dram_gbps"),
    Level("l2_bytes_moved", "L2", "bottom", "l2_gbps", "datasheet_l2_gbps"),
    Level(
        "l1_bytes_moved", "L1 (global ld/st)", "none", "l1_gbps", "datasheet_l1_gbps"
    ),
)
ROOF_STYLE = {"measured": ("-", "k"), "datasheet": ("--", "0.45")}
LEVEL_ROOF_WIDTH = {"DRAM": 1.2, "L2": 0.9, "L1 (global ld/st)": 0.7}
MAX_PANELS = 3
WORK = "ideal_flops"  # the manifest's work at the row's size (FLOP)


def drawn_levels(ctx: dict[str, Any]) -> tuple[Level, ...]:
    """The levels whose roof the ceilings hold (DRAM always: the copy bandwidth)."""
    c = ctx["ceilings"]
    return tuple(
        lv
        for lv in LEVELS
        if lv is LEVELS[0] or c.get(lv.measured) or c.get(lv.datasheet)
    )


def roofline_points(analysis: pd.DataFrame) -> pd.DataFrame:
    """Profiled rows with ``perf`` (GFLOP/s) and ``ai_<level>`` (FLOP per byte)."""
    prof = data.profiled(analysis).copy()
    declared = WORK in prof and prof[WORK].gt(0).any()
    prof["work"] = prof[WORK] if declared else prof["measured_flops"]
    prof = prof[(prof["work"] > 0) & (prof["ncu_time_ns"] > 0)].copy()
    prof["perf"] = prof["work"] / prof["ncu_time_ns"]  # FLOP/ns = GFLOP/s
    for level in LEVELS:
        if level.column in prof:
            bytes_ = prof[level.column].where(prof[level.column] > 0)
            prof[f"ai_{level.column}"] = prof["work"] / bytes_
        else:
            prof[f"ai_{level.column}"] = np.nan
    return prof


def _roofs(ax: Axes, ctx: dict[str, Any], xlim: tuple[float, float]) -> list[Line2D]:
    """Draw every roof the ceilings hold; returns legend entries."""
    c = ctx["ceilings"]
    ai = np.logspace(np.log10(xlim[0]), np.log10(xlim[1]), 200)
    handles: list[Line2D] = []
    for kind, peak_key in (
        ("measured", column_names.FP32_GFLOPS),
        ("datasheet", "datasheet_fp32_gflops"),
    ):
        ls, colour = ROOF_STYLE[kind]
        peak = c.get(peak_key)
        for level in LEVELS:
            bw = c.get(getattr(level, kind))
            if not bw or not peak:
                continue
            lw = LEVEL_ROOF_WIDTH[level.name]
            ax.plot(ai, np.minimum(ai * bw, peak), color=colour, ls=ls, lw=lw)
            handles.append(
                Line2D(
                    [],
                    [],
                    color=colour,
                    ls=ls,
                    lw=lw,
                    label=f"{level.name.split(' ')[0]} roof, {kind}: {bandwidth_text(bw)}",
                )
            )
        if peak:
            handles.append(
                Line2D(
                    [],
                    [],
                    color=colour,
                    ls=ls,
                    lw=0.6,
                    label=f"FP32 peak, {kind}: {flops_text(peak)}",
                )
            )
    missing = [
        lv.name.split(" ")[0]
        for lv in LEVELS[1:]
        if not (c.get(lv.measured) or c.get(lv.datasheet))
    ]
    if missing:
        which = " / ".join(missing)
        label = f"{which} points not drawn: no {which} roof measured"
        handles.append(Line2D([], [], ls="none", label=label))
    return handles


def _panel(
    fig: TippedFigure, ax: Axes, rows: pd.DataFrame, ctx: dict[str, Any], size: int
) -> list[PointLabel]:
    """Points, joining lines and step arrows of one size; returns the DRAM labels."""
    styles = variant_styles(family_variants(ctx))
    labels: list[PointLabel] = []
    for row in rows.to_dict("records"):
        st = styles[row[column_names.VARIANT]]
        xs = _variant_points(fig, ax, row, st, size, drawn_levels(ctx))
        dram = row["ai_dram_bytes"]
        x = dram if np.isfinite(dram) else (xs[0] if xs else np.nan)
        if np.isfinite(x):
            labels.append(
                PointLabel(
                    x, row["perf"], short_name(row[column_names.VARIANT]), st["color"]
                )
            )
    _step_arrows(ax, rows, ctx, styles)
    return labels


def _variant_points(
    fig: TippedFigure,
    ax: Axes,
    row: dict[Hashable, Any],
    st: dict[str, Any],
    size: int,
    levels: tuple[Level, ...],
) -> list[float]:
    """One variant's point per level drawn, each tipped, joined by a thin line.

    Returns:
        The arithmetic intensities drawn (FLOP per byte), in ``levels`` order.
    """
    xs = []
    for level in levels:
        ai = row[f"ai_{level.column}"]
        if not np.isfinite(ai):
            continue
        xs.append(ai)
        (point,) = ax.plot(
            [ai],
            [row["perf"]],
            ls="none",
            ms=5.5,
            fillstyle=level.fill,
            markeredgewidth=1.0,
            zorder=3,
            **st,
        )
        fig.tip(
            point,
            f"{row['variant']}, n = {data.size_text(size)}, "
            f"{flops_text(row['perf'])} at {ai:.3g} FLOP/byte "
            f"({level.name}: {bytes_text(row[level.column])})",
        )
    if len(xs) > 1:
        ax.plot(
            [min(xs), max(xs)],
            [row["perf"]] * 2,
            color=st["color"],
            lw=0.6,
            zorder=2,
        )
    return xs


def _step_arrows(
    ax: Axes,
    rows: pd.DataFrame,
    ctx: dict[str, Any],
    styles: dict[str, dict[str, Any]],
) -> None:
    """An arrow from each variant's DRAM point to that of the step it improves on."""
    by_variant = rows.set_index(column_names.VARIANT)
    for v in ctx["variants"]:
        before, after = v[column_names.IMPROVES_ON], v[column_names.NAME]
        if before in by_variant.index and after in by_variant.index:
            a, b = by_variant.loc[before], by_variant.loc[after]
            if np.isfinite(a["ai_dram_bytes"]) and np.isfinite(b["ai_dram_bytes"]):
                ax.annotate(
                    "",
                    (b["ai_dram_bytes"], b["perf"]),
                    (a["ai_dram_bytes"], a["perf"]),
                    arrowprops={
                        "arrowstyle": "->",
                        "color": styles[after]["color"],
                        "lw": 0.8,
                        "shrinkA": 4,
                        "shrinkB": 4,
                    },
                )


def roofline_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> TippedFigure:
    """Hierarchical roofline of the family at each profiled size (up to three)."""
    with matplotlib_context():
        points = roofline_points(analysis)
        sizes = sorted(int(n) for n in points[column_names.SIZE].unique())[-MAX_PANELS:]
        fig = tipped_figure(max(7.5, 1.0 + 3.6 * len(sizes)), 5.6 if sizes else 1.6)
        if not sizes:
            fig.text(
                0.5,
                0.5,
                "no work declared or FP32 operations counted (or not profiled):\n"
                "a roofline needs FLOPs",
                ha="center",
                va="center",
            )
            fig.suptitle(f"{ctx['family']['title']}: roofline")
            return fig
        axes = np.atleast_1d(fig.subplots(1, len(sizes), sharey=True))
        ai_cols = [f"ai_{lv.column}" for lv in drawn_levels(ctx)]
        xlim = log_limits(points[ai_cols].to_numpy().ravel().tolist(), 2.5)
        ylim = _perf_limits(points, ctx, xlim)
        # the library's rate at each panel's own size: a ceiling only where timed
        vendors = {n: data.vendor_at(analysis, ctx, n) for n in sizes}
        all_labels = []
        for ax, size in zip(axes, sizes, strict=True):
            rows = points[points[column_names.SIZE] == size]
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlim(*xlim)
            ax.set_ylim(*ylim)
            roof_handles = _roofs(ax, ctx, xlim)
            vendor = vendors[size]
            if vendor is not None:
                _vendor_line(fig, ax, vendor)
            all_labels.append((ax, _panel(fig, ax, rows, ctx, size), rows))
            ax.set_title(f"n = {data.size_text(size)}")
            ax.set_xlabel("arithmetic intensity [ideal FLOP / byte moved]")
            unit_axis(ax.yaxis, flops_text)
            unit_axis(ax.xaxis, lambda v: f"{v:g}")
        axes[0].set_ylabel("FLOP rate (ideal FLOPs / ncu time)")
        drawn = [v for v in vendors.values() if v is not None]
        handles = _legend_handles(points, ctx, roof_handles, drawn)
        figure_legend(fig, handles)
        levels = ", ".join(lv.name.split(" ")[0] for lv in drawn_levels(ctx))
        fig.suptitle(f"{ctx['family']['title']}: roofline ({levels} bytes)")
        fit_texts(fig)  # before the labels: they are placed on the final layout
        for ax, labels, rows in all_labels:
            avoid = [
                (x, y)
                for col in ai_cols
                for x, y in zip(rows[col], rows["perf"], strict=True)
                if np.isfinite(x)
            ]
            place_labels(ax, labels, avoid)
    return fig


def _perf_limits(
    points: pd.DataFrame, ctx: dict[str, Any], xlim: tuple[float, float]
) -> tuple[float, float]:
    """The FLOP-rate axis: the points and the roof above them.

    The roof at the points' largest intensity (the DRAM roof there, or the FP32 peak
    or the vendor line where they are lower) is always on the axis: the distance to
    it is what the figure shows. Histogram's points at 1 FLOP/B reach 0.5 TFLOP/s
    under a DRAM roof of 4.2 TFLOP/s, which an axis fitted to the points cropped.
    A flat top (the FP32 peak, the vendor line) 3x above that roof and every point
    is left off rather than squashing the points.
    """
    c = ctx["ceilings"]
    bw = c.get(column_names.COPY_GBPS) or 0.0
    tops = [p for p in (c.get(column_names.FP32_GFLOPS), data_vendor(ctx)) if p]
    perf = points["perf"].tolist()
    ai_max = float(np.nanmax(points["ai_dram_bytes"].to_numpy(dtype=float)))
    ai_max = ai_max if np.isfinite(ai_max) else xlim[1]
    roof = min([bw * ai_max, *tops]) if bw else min(tops, default=0.0)
    high = max([*perf, roof])
    kept = [t for t in tops if t < 3 * high]
    return log_limits([*perf, roof, *kept], 1.5)


def _vendor_line(fig: TippedFigure, ax: Axes, vendor: data.VendorPoint) -> None:
    """The vendor library's measured rate: a dotted line across every intensity.

    Its bytes were not measured, so it has no intensity and no point of its own.
    """
    line = ax.axhline(vendor.gflops, color="k", ls=":", lw=1)
    at = f" (n = {vendor.size})" if vendor.size else ""
    fig.tip(line, f"{vendor.name}{at}, {flops_text(vendor.gflops)}, bytes not measured")


def _legend_handles(
    points: pd.DataFrame,
    ctx: dict[str, Any],
    roof_handles: list[Line2D],
    vendors: list[data.VendorPoint],
) -> list[Line2D]:
    """The legend: variants shown, one marker per level, the roofs, the vendor rates.

    The vendor library's line is drawn in each panel at that panel's size; the
    legend names each size's rate.
    """
    shown = [v for v in family_variants(ctx) if v in set(points[column_names.VARIANT])]
    handles = variant_handles(shown, ctx)
    handles += [
        Line2D(
            [],
            [],
            color="k",
            marker="o",
            ls="none",
            ms=5,
            fillstyle=lv.fill,
            label=f"vs {lv.name} bytes",
        )
        for lv in drawn_levels(ctx)
    ]
    handles += roof_handles
    if vendors:
        rates = ", ".join(
            f"{flops_text(v.gflops)} at n = {data.size_text(v.size)}"
            if v.size
            else flops_text(v.gflops)
            for v in vendors
        )
        handles.append(
            Line2D(
                [],
                [],
                color="k",
                ls=":",
                label=f"{vendors[0].name}, at each panel's n: {rates}\n"
                "(a rate line: the library's measured rate at that n, at any intensity)",
            )
        )
    return handles


def data_vendor(ctx: dict[str, Any]) -> float | None:
    """The vendor library's rate (GFLOP/s) if the family has one."""
    vendor = data.vendor_point(ctx)
    return vendor.gflops if vendor else None
