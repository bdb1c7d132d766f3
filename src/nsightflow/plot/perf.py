"""Size curves: median time and the throughput of the family's regime over sizes.

The left panel is the median time with its interquartile range; the right panel
is the throughput lens :func:`nsightflow.plot.data.choose_lens` picks: FLOP/s under
the FP32 peak (and the vendor library, for SGEMM) for a compute-bound family, GB/s
under the copy bandwidth otherwise. Every point carries an SVG tooltip.
"""

from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

from nsightflow.contracts import columns as col
from nsightflow.plot import data
from nsightflow.plot.curves import coincide_notes, coincident, draw_curves
from nsightflow.plot.fit import figure_legend, fit_texts
from nsightflow.plot.style import (
    bandwidth_text,
    bytes_text,
    family_variants,
    flops_text,
    log_limits,
    matplotlib_context,
    time_text,
    unit_axis,
    variant_handles,
)
from nsightflow.plot.svg import TippedFigure, tipped_figure

LOG_SPAN = 20.0  # a value axis goes logarithmic when its data span more than this


def size_axis(ax: Axes, sizes: list[int]) -> None:
    """A log2 size axis with a tick at each measured size."""
    ax.set_xscale("log", base=2)
    ax.xaxis.set_major_locator(FixedLocator(sorted(set(sizes))))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.xaxis.set_major_formatter(FuncFormatter(lambda n, _p: data.size_text(n)))
    if sizes:
        low, high = min(sizes), max(sizes)
        ax.set_xlim(low / 1.25, high * 1.25)
    ax.set_xlabel("problem size n")


def value_axis(ax: Axes, values: list[float], text: Any, floor: float = 0.0) -> None:
    """Log scale when the values span more than LOG_SPAN, with units on the ticks."""
    positive = [v for v in values if v > 0]
    if positive and max(positive) / min(positive) > LOG_SPAN:
        ax.set_yscale("log")
        ax.set_ylim(*log_limits(positive, 1.4))
    elif positive:
        ax.set_ylim(floor, max(positive) * 1.12)
    unit_axis(ax.yaxis, text)


def time_panel(
    fig: TippedFigure,
    ax: Axes,
    rows: pd.DataFrame,
    ctx: dict[str, Any],
    iqr: bool = True,
) -> dict[str, str]:
    """Median time over sizes, one curve per variant; returns coinciding curves.

    Args:
        fig: The figure (for the tooltips).
        ax: The axes, its size axis set up.
        rows: The variants' timed rows.
        ctx: ``context.json``.
        iqr: Draw the interquartile range as bars (and name it in the tooltips).
    """
    value_axis(ax, rows[col.TIME_MEDIAN_US].tolist(), time_text)

    def tip(row: dict[Any, Any]) -> str:
        said = (
            f"{row['variant']}, n = {data.size_text(row['size'])}, "
            f"{time_text(float(row['time_median_us']))}"
        )
        if not iqr:
            return said
        return (
            f"{said} median (IQR {time_text(float(row['time_q1_us']))} .. "
            f"{time_text(float(row['time_q3_us']))})"
        )

    same = draw_curves(
        fig,
        ax,
        rows,
        col.TIME_MEDIAN_US,
        ctx,
        tip,
        spread=(
            lambda r: (
                (r[col.TIME_MEDIAN_US] - r[col.TIME_Q1_US]).clip(lower=0),
                (r[col.TIME_Q3_US] - r[col.TIME_MEDIAN_US]).clip(lower=0),
            )
        )
        if iqr
        else None,
    )
    ax.set_ylabel("median kernel time (IQR bars)" if iqr else "median kernel time")
    return same


def _rate_panel(
    fig: TippedFigure,
    ax: Axes,
    ok: pd.DataFrame,
    ctx: dict[str, Any],
    same: dict[str, str],
) -> tuple[str, dict[str, str]]:
    """The throughput panel; returns the lens basis and the curves coinciding here.

    ``same``: the curves that coincide in time, drawn dashed here too, so a variant
    has one style in both panels (and the legend).
    """
    choice = data.choose_lens(ok)
    column, text, name = (
        (col.GFLOPS, flops_text, "FLOP rate (ideal FLOPs / time)")
        if choice.lens == "compute"
        else (col.GBPS, bandwidth_text, "bandwidth (ideal bytes / time)")
    )
    refs = _references(fig, ax, choice.lens, ctx, ok)
    value_axis(ax, ok[column].dropna().tolist() + refs, text)
    order = [v for v in family_variants(ctx) if v in set(ok[col.VARIANT])]
    here = coincident(ok, column, order, ax)
    draw_curves(
        fig,
        ax,
        ok,
        column,
        ctx,
        lambda row: (
            f"{row['variant']}, n = {data.size_text(row['size'])}, "
            f"{text(float(row[column]))}"
        ),
        same={**here, **same},
    )
    ax.set_ylabel(name)
    ax.set_title("FLOP rate" if choice.lens == "compute" else "bandwidth")
    return choice.basis, here


def _references(
    fig: TippedFigure,
    ax: Axes,
    lens: data.Lens,
    ctx: dict[str, Any],
    analysis: pd.DataFrame,
) -> list[float]:
    """The lens's ceilings as labelled lines; returns their values (for the axis).

    Compute lens: the measured FP32 peak and, for SGEMM, the vendor library's rate
    (its star at the size it was measured at). Memory lens: the copy bandwidth.
    """
    ceilings = ctx["ceilings"]
    refs: list[float] = []
    if lens == "memory":
        copy = ceilings.get(col.COPY_GBPS)
        if copy:
            label = f"copy bandwidth (measured): {bandwidth_text(copy)}"
            ax.axhline(copy, color="k", ls="--", lw=1, label=label)
            refs.append(copy)
        return refs
    peak = ceilings.get(col.FP32_GFLOPS)
    if peak:
        label = f"FP32 peak (measured): {flops_text(peak)}"
        ax.axhline(peak, color="k", ls="--", lw=1, label=label)
        refs.append(peak)
    vendor, by = ladder_vendor(analysis, ctx)
    if vendor is not None:
        at = f" at n = {vendor.size}" if vendor.size else ""
        label = f"{vendor.name}{at}: {flops_text(vendor.gflops)}{by}"
        ax.axhline(vendor.gflops, color="k", ls=":", lw=1, label=label)
        if vendor.size:
            (star,) = ax.plot([vendor.size], [vendor.gflops], "k*", ms=8)
            fig.tip(star, label)
        refs.append(vendor.gflops)
    return refs


def ladder_vendor(
    analysis: pd.DataFrame, ctx: dict[str, Any]
) -> tuple[data.VendorPoint | None, str]:
    """The vendor line at the size ceilings.json measured it, in the ladder's number.

    Where the ladder's library variant was timed at that size, its rate is the one
    number there, and the label says whose it is: SGEMM at n = 8192 drew
    ceilings.json's cupy.matmul 50.4 TFLOP/s beside ``v8_torch_matmul``'s 51.3, two
    cuBLAS rates at one size.
    """
    own = data.vendor_point(ctx)
    if own is None or not own.size:
        return own, ""
    timed = data.vendor_at(analysis, ctx, own.size)
    library = [str(v[col.NAME]) for v in ctx.get("variants") or [] if v.get("library")]
    if timed is None or timed.gflops == own.gflops or not library:
        return own, ""
    return timed, f" ({library[0]}'s timing)"


def perf_vs_size_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> TippedFigure:
    """Median time and the regime's throughput against size, one line per variant."""
    with matplotlib_context():
        fig = tipped_figure(9, 4.2)
        ax_t, ax_r = fig.subplots(1, 2)
        ok = data.timed(analysis)
        sizes = [int(n) for n in analysis[col.SIZE].unique()]
        for ax in (ax_t, ax_r):
            size_axis(ax, sizes)
        if ok.empty:
            for ax in (ax_t, ax_r):
                ax.text(0.5, 0.5, "no timings", ha="center", transform=ax.transAxes)
            return fig
        same = time_panel(fig, ax_t, ok, ctx)
        ax_t.set_title("time")
        basis, here = _rate_panel(fig, ax_r, ok, ctx, same)
        where = {v: "time" for v, u in same.items() if here.get(v) != u}
        where |= {v: ax_r.get_title() for v, u in here.items() if same.get(v) != u}
        same = {**here, **same}
        boundary = data.l2_boundary(analysis, ctx)
        if boundary is not None:
            l2 = bytes_text(ctx["ceilings"]["l2_bytes"])
            for ax in (ax_t, ax_r):
                ax.axvline(boundary, color="grey", ls=":", lw=1)
            ax_t.lines[-1].set_label(f"working set > L2 ({l2}) from here")
        ax_r.set_title(f"{ax_r.get_title()}\n({basis})", fontsize=7.5)
        shown = [v for v in family_variants(ctx) if v in set(ok[col.VARIANT])]
        handles = variant_handles(shown, ctx, same)
        for ax in (ax_t, ax_r):
            handles += ax.get_legend_handles_labels()[0]
        handles += coincide_notes(same, where)
        figure_legend(fig, handles)
        fig.suptitle(f"{ctx['family']['title']}: time and throughput over sizes")
        fit_texts(fig)
    return fig
