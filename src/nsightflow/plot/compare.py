"""The figure of ``nsightflow compare``: B / A per variant and size, with its interval.

One panel per family; along x the variants, and within each variant its sizes from
small (left) to large (right); the y axis is the ratio of median times on a log scale
(up: B slower), each point with its confidence interval and coloured by its verdict;
the shaded band is the threshold's floor; open markers are pairs whose two runs were
not timed alike (a caveat: cache mode, other processes, throttling, clocks). A narrow
ratio axis is ticked in percent changes, a wide one in factors (never both on one
axis). Returns a :class:`Figure`; the CLI saves it.
"""

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Patch
from matplotlib.ticker import FuncFormatter, MaxNLocator, NullFormatter

from nsightflow.analysis import compare as C
from nsightflow.contracts import columns as col
from nsightflow.plot.fit import figure_legend, fit_texts
from nsightflow.plot.style import matplotlib_context, new_figure

VERDICT_COLORS = {
    C.SAME: "#7f7f7f",
    C.FASTER: "#2ca02c",
    C.SLOWER: "#d62728",
    C.UNCERTAIN: "#ff7f0e",
}
PANEL_HEIGHT = 2.1
WIDE = 3.0  # a ratio axis spanning this factor is ticked in powers of two
BAND_COLOR = "#dddddd"


def ratio_label(value: float, wide: bool) -> str:
    """A ratio tick: a change (``+10%``) on a narrow axis, a factor (``x4``) on a wide.

    One axis writes all its ticks one way (a wide axis ticks powers of two).
    """
    return f"x{value:.3g}" if wide else f"{100 * (value - 1):+.3g}%"


def ratio_figure(pairs: pd.DataFrame, floor: float) -> Figure:
    """B / A of every pair with its interval, one panel per family.

    Args:
        pairs: :func:`nsightflow.analysis.compare.pair_timings`.
        floor: The threshold's floor (relative), drawn as a band around 1.
    """
    families = sorted(pairs[col.FAMILY].unique())
    with matplotlib_context():
        fig = new_figure(9, PANEL_HEIGHT * max(1, len(families)) + 0.4)
        axes = fig.subplots(max(1, len(families)), 1, squeeze=False)[:, 0]
        for ax, family in zip(axes, families, strict=False):
            _panel(ax, pairs[pairs[col.FAMILY] == family], str(family), floor)
        handles = [
            Line2D([], [], color=c, marker="o", ls="", label=v)
            for v, c in VERDICT_COLORS.items()
        ]
        band = Patch(
            color=BAND_COLOR,
            label=f"threshold floor +-{100 * floor:.0f}%",
        )
        unlike = Line2D(
            [],
            [],
            color="#555555",
            mfc="white",
            marker="o",
            ls="",
            label="timed unlike",
        )
        figure_legend(
            fig, [*handles, unlike, band], loc="outside upper center", ncols=6
        )
        fit_texts(fig)
    return fig


def ratio_ticks(bottom: float, top: float) -> list[float]:
    """Tick positions for a ratio axis.

    Round percentages on a narrow range, powers of two on a wide one.
    """
    if top / bottom < WIDE:
        pcts = MaxNLocator(6, steps=[1, 2, 2.5, 5, 10]).tick_values(
            100 * (bottom - 1), 100 * (top - 1)
        )
        ticks = [1 + p / 100 for p in pcts]
    else:
        ticks = [2.0**k for k in range(-12, 13)]
    return [t for t in ticks if bottom <= t <= top]


def _panel(ax: Axes, rows: pd.DataFrame, family: str, floor: float) -> None:
    variants = list(dict.fromkeys(sorted(rows[col.VARIANT])))
    sizes = sorted(rows[col.SIZE].unique())
    width = 0.7
    step = width / max(1, len(sizes) - 1) if len(sizes) > 1 else 0.0
    x = np.array(
        [
            variants.index(v) - width / 2 * (len(sizes) > 1) + sizes.index(s) * step
            for v, s in zip(rows[col.VARIANT], rows[col.SIZE], strict=True)
        ]
    )
    ax.axhspan(1 / (1 + floor), 1 + floor, color=BAND_COLOR, lw=0)
    ax.axhline(1.0, color="#555555", lw=0.8)
    alike = (rows[col.CAVEATS].fillna("") == "").to_numpy()
    for verdict, color in VERDICT_COLORS.items():
        for same_setup in (True, False):
            hit = (rows[col.VERDICT] == verdict).to_numpy() & (alike == same_setup)
            if not hit.any():
                continue
            ratio = rows[col.RATIO].to_numpy()[hit]
            low = rows[col.CI_LOW].to_numpy()[hit]
            high = rows[col.CI_HIGH].to_numpy()[hit]
            ax.errorbar(
                x[hit],
                ratio,
                yerr=[ratio - low, high - ratio],
                fmt="o",
                ms=3.5,
                color=color,
                mfc=color if same_setup else "white",
                elinewidth=1.2,
                capsize=1.5,
            )
    ratios = rows[[col.RATIO, col.CI_LOW, col.CI_HIGH]].to_numpy(dtype=float)
    top = max(1 + 2 * floor, float(np.nanmax(ratios)) * 1.05)
    bottom = min(1 / (1 + 2 * floor), float(np.nanmin(ratios)) / 1.05)
    ax.set_yscale("log")
    ax.set_ylim(bottom, top)
    ax.set_yticks(ratio_ticks(bottom, top))
    wide = top / bottom >= WIDE
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: ratio_label(v, wide)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.grid(False, axis="x")
    for edge in range(1, len(variants)):  # separators between the variants
        ax.axvline(edge - 0.5, color="#eeeeee", lw=0.8)
    ax.set_xticks(range(len(variants)))
    ax.set_xticklabels(variants, fontsize=6.5 if len(variants) > 6 else 7.5)
    ax.set_xlim(-0.5, len(variants) - 0.5)
    ax.set_ylabel("time B / time A")
    ax.set_title(
        f"{family}: sizes {sizes[0]:,} .. {sizes[-1]:,} left to right", fontsize=8
    )
