"""What every figure shares: rcParams, colours and markers, units, and the new figure.

Colours are Paul Tol's colour-blind-safe "muted" set, extended to ten with Tol's
dark blue; each variant also gets its own marker, so points stay distinct in grey
print and for readers who do not see the colour. A variant keeps its colour and
marker in every figure of its family (its place in the manifest decides them).
Stall reasons have one fixed order and colour in every family.
"""

import functools
import math
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from nsightflow.contracts import columns as col

# re-exported: the figures read them here
from nsightflow.plot.units import bandwidth_text as bandwidth_text
from nsightflow.plot.units import bytes_text as bytes_text
from nsightflow.plot.units import count_text as count_text
from nsightflow.plot.units import flops_text as flops_text
from nsightflow.plot.units import time_text as time_text

# Font families in fallback order: DejaVu Sans (matplotlib's own) for Latin text,
# then a CJK font for Chinese text that comes from the manifests (titles, ideas).
CJK_FONT_FILES = (
    Path("/usr/share/fonts/truetype/wqy/wqy-microhei.ttc"),  # Debian, Ubuntu
    Path("/usr/share/fonts/wqy-microhei/wqy-microhei.ttc"),  # Fedora
    Path("/usr/share/fonts/wenquanyi/wqy-microhei/wqy-microhei.ttc"),  # Arch
)
CJK_FONT_ENV = "NSIGHTFLOW_CJK_FONT"  # the same override the PDF stage reads

STYLE: dict[str, Any] = {  # rcParams shared by every figure
    "font.size": 8,
    "axes.titlesize": 9,
    # titles sit on the axes' top (our ticks and labels are below, no offset texts):
    # matplotlib's automatic placement measured every axis of the figure again for
    # each title at each layout and draw, an eighth of the plot stage
    "axes.titley": 1.0,
    "axes.labelsize": 8,
    "xtick.labelsize": 7.5,
    "ytick.labelsize": 7.5,
    "legend.fontsize": 7.5,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    # text is data (variant and metric names): a "$" or "_" never turns into maths
    "text.parse_math": False,
    "svg.fonttype": "none",  # SVG text stays text: searchable, crisp, selectable
    "svg.hashsalt": "nsightflow",  # the same data gives the same SVG bytes
}
DPI = 150  # PNG resolution: sharp in the PDF at the text width

# Paul Tol, "muted" (9 colours) + "dark blue" of his high-contrast set.
PALETTE = (
    "#332288",
    "#CC6677",
    "#117733",
    "#DDCC77",
    "#88CCEE",
    "#882255",
    "#44AA99",
    "#999933",
    "#AA4499",
    "#004488",
)
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")

# Stall reasons in a fixed order and colour (ncu names without the prefix); the
# rest is summed into "other". Okabe-Ito's eight plus two of Tol's pale tones.
STALL_COLOURS = {
    "long_scoreboard": "#0072B2",
    "lg_throttle": "#56B4E9",
    "mio_throttle": "#009E73",
    "short_scoreboard": "#F0E442",
    "barrier": "#E69F00",
    "math_pipe_throttle": "#D55E00",
    "wait": "#CC79A7",
    "not_selected": "#000000",
    "dispatch_stall": "#BBCC33",
    "no_instruction": "#99DDFF",
    "other": "#BBBBBB",
}


def cjk_font_name() -> str | None:
    """Register the CJK font with matplotlib and return its family name (None if absent)."""
    override = os.environ.get(CJK_FONT_ENV)
    candidates = [Path(override)] if override else list(CJK_FONT_FILES)
    found = next((p for p in candidates if p.is_file()), None)
    return None if found is None else _registered(str(found))


@functools.cache
def _registered(path: str) -> str | None:
    """Add the font file to matplotlib's list once per process; its family name.

    Each addfont appends the face again and empties matplotlib's font lookup cache:
    done for every figure, every text's font was looked up anew.
    """
    from matplotlib import font_manager

    try:
        font_manager.fontManager.addfont(path)
        return str(font_manager.FontProperties(fname=path).get_name())
    except (OSError, RuntimeError, ValueError):  # unreadable font file: Latin only
        return None


def style() -> dict[str, Any]:
    """The rcParams of every figure, with the CJK fallback font where one exists."""
    cjk = cjk_font_name()
    families = ["DejaVu Sans", *([cjk] if cjk else [])]
    return {**STYLE, "font.family": "sans-serif", "font.sans-serif": families}


def new_figure(width: float, height: float) -> Figure:
    """An empty figure with constrained layout and an Agg canvas (no pyplot)."""
    fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def variant_styles(variants: list[str]) -> dict[str, dict[str, Any]]:
    """Colour and marker of each variant, by its place in the family's manifest."""
    return {
        v: {"color": PALETTE[i % len(PALETTE)], "marker": MARKERS[i % len(MARKERS)]}
        for i, v in enumerate(variants)
    }


def family_variants(ctx: dict[str, Any]) -> list[str]:
    """The family's variants in manifest order (the order that fixes their colours)."""
    return [str(v[col.NAME]) for v in ctx["variants"]]


def variant_handles(
    shown: list[str], ctx: dict[str, Any], hollow: Iterable[str] = ()
) -> list[Line2D]:
    """Legend entries (colour and marker) of the variants a figure shows.

    ``hollow``: variants drawn dashed with hollow markers (their curve lies on
    another's, :mod:`nsightflow.plot.curves`).
    """
    styles = variant_styles(family_variants(ctx))
    dashed = set(hollow)
    return [
        Line2D([], [], ls="--", lw=1.1, ms=5, mfc="none", label=v, **styles[v])
        if v in dashed
        else Line2D([], [], ls="-", lw=1.1, ms=4, label=v, **styles[v])
        for v in shown
    ]


def short_name(variant: str) -> str:
    """``v7`` of ``v7_double_buffer``: the label a crowded figure puts on a point."""
    head = variant.split("_", 1)[0]
    return head if head[1:].isdigit() else variant


# -- units that fit the value: nsightflow.plot.units (no matplotlib; the report reads them)


def unit_formatter(text: Any) -> FuncFormatter:
    """A tick formatter writing each tick with the unit that fits it."""
    return FuncFormatter(lambda value, _pos: text(value) if value > 0 else "0")


def unit_axis(axis: Any, text: Any) -> None:
    """Major ticks written with their unit; minor ticks (log axes) left unwritten.

    A log axis spanning few decades also gets ticks between the powers of ten
    (2x and 5x under 1.2 decades, 3x under 2.2), so it never shows a single
    labelled tick, and no more than a narrow axis can write apart. Call it after
    the scale and limits are set.
    """
    if axis.get_scale() == "log":
        low, high = sorted(axis.get_view_interval())
        decades = math.log10(high / low) if low > 0 else math.inf
        if decades < 1.2:
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        elif decades < 2.2:
            axis.set_major_locator(LogLocator(base=10, subs=(1.0, 3.0)))
    axis.set_major_formatter(unit_formatter(text))
    axis.set_minor_formatter(NullFormatter())


def log_limits(values: list[float], margin: float = 1.6) -> tuple[float, float]:
    """Limits of a log axis that hold ``values`` with a margin factor on each side."""
    finite = [v for v in values if v > 0 and math.isfinite(v)]
    if not finite:
        return 1.0, 10.0
    low, high = min(finite) / margin, max(finite) * margin
    if high / low < 10:  # at least one decade, centred, so ticks appear
        centre = math.sqrt(low * high)
        low, high = centre / math.sqrt(10), centre * math.sqrt(10)
    return low, high


def matplotlib_context() -> Any:
    """The figures' rcParams, in force for a ``with`` block."""
    params: Any = style()
    return matplotlib.rc_context(params)
