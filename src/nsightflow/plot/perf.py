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

from nsightflow.plot import data
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
    variant_styles,
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


def _time_panel(
    fig: TippedFigure, ax: Axes, ok: pd.DataFrame, ctx: dict[str, Any]
) -> None:
    styles = variant_styles(family_variants(ctx))
    for variant, rows in ok.groupby("variant", sort=False):
        rows = rows.sort_values("size")
        st = styles[str(variant)]
        ax.errorbar(
            rows["size"],
            rows["time_median_us"],
            yerr=[
                (rows["time_median_us"] - rows["time_q1_us"]).clip(lower=0),
                (rows["time_q3_us"] - rows["time_median_us"]).clip(lower=0),
            ],
            color=st["color"],
            lw=1.1,
            capsize=1.5,
        )
        for row in rows.to_dict("records"):
            (point,) = ax.plot(
                [row["size"]], [row["time_median_us"]], ls="none", ms=4, **st
            )
            fig.tip(
                point,
                f"{variant}, n = {data.size_text(row['size'])}, "
                f"{time_text(float(row['time_median_us']))} median "
                f"(IQR {time_text(float(row['time_q1_us']))} .. "
                f"{time_text(float(row['time_q3_us']))})",
            )
    value_axis(ax, ok["time_median_us"].tolist(), time_text)
    ax.set_ylabel("median kernel time (IQR bars)")
    ax.set_title("time")


def _rate_panel(
    fig: TippedFigure, ax: Axes, ok: pd.DataFrame, ctx: dict[str, Any]
) -> str:
    """The throughput panel; returns the lens basis for the caption."""
    choice = data.choose_lens(ok)
    column, text, name = (
        ("gflops", flops_text, "FLOP rate (ideal FLOPs / time)")
        if choice.lens == "compute"
        else ("gbps", bandwidth_text, "bandwidth (ideal bytes / time)")
    )
    styles = variant_styles(family_variants(ctx))
    for variant, rows in ok.groupby("variant", sort=False):
        rows = rows.sort_values("size")
        st = styles[str(variant)]
        ax.plot(rows["size"], rows[column], color=st["color"], lw=1.1)
        for row in rows.to_dict("records"):
            value = float(row[column])
            (point,) = ax.plot([row["size"]], [value], ls="none", ms=4, **st)
            fig.tip(
                point, f"{variant}, n = {data.size_text(row['size'])}, {text(value)}"
            )
    values = ok[column].dropna().tolist()
    ceilings = ctx["ceilings"]
    refs: list[float] = []
    if choice.lens == "compute":
        peak = ceilings.get("fp32_gflops")
        if peak:
            ax.axhline(
                peak,
                color="k",
                ls="--",
                lw=1,
                label=f"FP32 peak (measured): {flops_text(peak)}",
            )
            refs.append(peak)
        vendor = data.vendor_point(ctx)
        if vendor is not None:
            at = f" at n = {vendor.size}" if vendor.size else ""
            label = f"{vendor.name}{at}: {flops_text(vendor.gflops)}"
            ax.axhline(vendor.gflops, color="k", ls=":", lw=1, label=label)
            if vendor.size:
                (star,) = ax.plot([vendor.size], [vendor.gflops], "k*", ms=8)
                fig.tip(star, label)
            refs.append(vendor.gflops)
    else:
        copy = ceilings.get("copy_gbps")
        if copy:
            ax.axhline(
                copy,
                color="k",
                ls="--",
                lw=1,
                label=f"copy bandwidth (measured): {bandwidth_text(copy)}",
            )
            refs.append(copy)
    value_axis(ax, values + refs, text)
    ax.set_ylabel(name)
    ax.set_title("FLOP rate" if choice.lens == "compute" else "bandwidth")
    return choice.basis


def perf_vs_size_figure(analysis: pd.DataFrame, ctx: dict[str, Any]) -> TippedFigure:
    """Median time and the regime's throughput against size, one line per variant."""
    with matplotlib_context():
        fig = tipped_figure(9, 4.2)
        ax_t, ax_r = fig.subplots(1, 2)
        ok = data.timed(analysis)
        sizes = [int(n) for n in analysis["size"].unique()]
        for ax in (ax_t, ax_r):
            size_axis(ax, sizes)
        if ok.empty:
            for ax in (ax_t, ax_r):
                ax.text(0.5, 0.5, "no timings", ha="center", transform=ax.transAxes)
            return fig
        _time_panel(fig, ax_t, ok, ctx)
        basis = _rate_panel(fig, ax_r, ok, ctx)
        boundary = data.l2_boundary(analysis, ctx)
        if boundary is not None:
            l2 = bytes_text(ctx["ceilings"]["l2_bytes"])
            for ax in (ax_t, ax_r):
                ax.axvline(boundary, color="grey", ls=":", lw=1)
            ax_t.lines[-1].set_label(f"working set > L2 ({l2}) from here")
        ax_r.set_title(f"{ax_r.get_title()}\n({basis})", fontsize=7.5)
        handles = variant_handles(list(dict.fromkeys(ok["variant"])), ctx)
        for ax in (ax_t, ax_r):
            handles += ax.get_legend_handles_labels()[0]
        fig.legend(handles=handles, loc="outside lower center", ncols=4)
        fig.suptitle(f"{ctx['family']['title']}: time and throughput over sizes")
    return fig
