"""What each step changed: the family's step-change map, and what step figures share.

``step_changes``: a grid of steps (columns) by quantities (rows), each cell the ratio
after / before at the largest profiled size, coloured on a log scale and written
out; a change from 0 (``0 -> 1.2M``) or to 0 (``-> 0``) is a hatched, labelled cell,
never dropped. Rows: time, the counters of :data:`STEP_METRICS` (issued warp
instructions among them) and, where a step's primary cause at that size
(``findings.csv``) measures something else (stall cycles of its reasons, idle time,
load requests), that quantity (:mod:`nsightflow.plot.step_rows`): a counter
of the analysis at every variant, any other as the finding recorded it. The cell of
each step's primary cause is outlined; the caption says so only where one is.

``step_<variant>``, one figure per step, is drawn by
:mod:`nsightflow.plot.step_detail` with the quantities of
:mod:`nsightflow.plot.quantity`.
"""

import math
import textwrap
from dataclasses import dataclass
from typing import Any

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.colors import Normalize
from matplotlib.patches import Rectangle

from nsightflow.contracts import columns as col
from nsightflow.plot import data
from nsightflow.plot.fit import fit_texts
from nsightflow.plot.quantity import (
    metric_quantity,
)
from nsightflow.plot.step_rows import (
    SHARE_COUNTS,
    STEP_METRICS,
    MapRow,
    map_rows,
    primary_rows,
    step_findings,
)
from nsightflow.plot.style import (
    bytes_text,
    count_text,
    matplotlib_context,
    short_name,
    time_text,
)
from nsightflow.plot.svg import TippedFigure, tipped_figure

ROW_LABEL = 32  # characters of a row's name per line
RATIO_SPAN = 3.0  # the colour scale spans at least 2^-3 .. 2^3 (1/8x .. 8x)
CMAP = "PuOr_r"  # diverging, colour-blind safe: orange = more, purple = less


def steps_of(ctx: dict[str, Any]) -> list[tuple[str, str]]:
    """(before, after) of every step, in manifest order."""
    steps = [v for v in ctx["variants"] if v[col.IMPROVES_ON]]
    return [(str(v[col.IMPROVES_ON]), str(v[col.NAME])) for v in steps]


def metric_label(column: str) -> str:
    """How a figure names a metric column (an unknown one by its own name)."""
    return STEP_METRICS.get(column, column)


def metric_text(column: str, value: float) -> str:
    """A value of a metric column with the unit its name implies."""
    if not math.isfinite(value):
        return "n/a"
    if column.endswith("_us"):
        return time_text(value)
    if column.endswith("_bytes") or column.endswith("_bytes_moved"):
        return bytes_text(value)
    if column.endswith("_pct"):
        return f"{value:.1f}%"
    if column.endswith("_share"):
        return f"{100 * value:.1f}%"
    return count_text(value)


def ratio_cell(before: float, after: float) -> tuple[float, str, bool]:
    """Colour value (log2 ratio), text and hatch flag of one after / before cell."""
    if not (math.isfinite(before) and math.isfinite(after)):
        return math.nan, "", False
    if before == 0 and after == 0:
        return 0.0, "0 = 0", False
    if before == 0:
        return RATIO_SPAN, f"0 → {count_text(after)}", True
    if after == 0:
        return -RATIO_SPAN, "→ 0", True
    ratio = after / before
    if ratio < 0.1:  # 1/170x reads better than 0.0059x
        text = f"1/{1 / ratio:,.0f}x"
    else:
        text = f"{ratio:.2g}x" if ratio < 10 else f"{ratio:,.0f}x"
    return math.log2(ratio), text, False


def step_changes_figure(
    analysis: pd.DataFrame,
    ctx: dict[str, Any],
    findings: pd.DataFrame | None = None,
    stalls: pd.DataFrame | None = None,
) -> TippedFigure:
    """The after / before map of every step at the largest profiled size."""
    with matplotlib_context():
        prof = data.profiled(analysis)
        size = int(prof[col.SIZE].max()) if not prof.empty else None
        rows = prof[prof[col.SIZE] == size].set_index(col.VARIANT) if size else prof
        found = step_findings(findings, size)
        at = (
            stalls[stalls[col.SIZE] == size]
            if stalls is not None and len(stalls)
            else None
        )
        metrics = map_rows(rows, found, at)
        steps = [(b, a) for b, a in steps_of(ctx) if {b, a} <= set(rows.index)]
        fig = tipped_figure(
            max(6.5, 2.6 + 0.78 * len(steps)), 1.7 + 0.3 * max(len(metrics), 1)
        )
        ax = fig.subplots()
        if not steps or not metrics:
            ax.text(0.5, 0.5, "no profiled steps", ha="center", transform=ax.transAxes)
            ax.set_axis_off()
            return fig
        grid = Grid(rows, metrics, steps, primary_rows(found), size)
        norm = Normalize(-ratio_span(grid), ratio_span(grid))
        outlined = _cells(fig, ax, grid, norm)
        _map_axes(ax, steps, [r.label for r in metrics])
        _ratio_colorbar(fig, ax, norm, outlined > 0)
        ax.set_title(
            f"{ctx['family']['title']}: what each step changed, n = {data.size_text(size)}"
        )
        fit_texts(fig)
    return fig


@dataclass(frozen=True)
class Grid:
    """What the step-change map draws: its rows, columns and outlined cells."""

    rows: pd.DataFrame  # the analysis at the map's size, indexed by variant
    metrics: list[MapRow]
    steps: list[tuple[str, str]]
    primary: dict[str, str]  # step variant -> the row key of its primary cause
    size: int | None


def ratio_span(grid: Grid) -> float:
    """The colour scale's half-width (log2): the map's largest ratio, at least 8x."""
    # a whole power of two, so 2,053x is not drawn as 8x; from or to 0 takes the end
    largest = RATIO_SPAN
    for before, after in grid.steps:
        for row in grid.metrics:
            value, _, hatch = ratio_cell(*_pair(grid.rows, row, before, after))
            if math.isfinite(value) and not hatch:
                largest = max(largest, abs(value))
    return float(math.ceil(largest))


def _cells(fig: TippedFigure, ax: Axes, grid: Grid, norm: Normalize) -> int:
    """Every cell of the map, tipped, the primary causes outlined; how many are."""
    outlined = 0
    for j, (before, after) in enumerate(grid.steps):
        for i, row in enumerate(grid.metrics):
            b, a = _pair(grid.rows, row, before, after)
            value, text, hatch = ratio_cell(b, a)
            counted = ""
            if row.key in SHARE_COUNTS and not math.isfinite(value):
                value, text, hatch = _counts_cell(grid.rows, row.key, before, after)
                counted = f" ({SHARE_COUNTS[row.key][1]} {text})" if text else ""
            if hatch:  # from or to 0: the end of the scale
                value = math.copysign(float(norm.vmax or RATIO_SPAN), value)
            _cell(fig, ax, (i, j), value, text, hatch, norm)
            fig.tip(
                ax.patches[-1],
                f"{before} → {after}, n = {data.size_text(grid.size)}, "
                f"{row.label}: {_text(row, b)} → {_text(row, a)}{counted}",
            )
            if grid.primary.get(after) == row.key:
                box = Rectangle((j - 0.46, i - 0.46), 0.92, 0.92, fill=False, lw=1.8)
                box.set(edgecolor="k", zorder=3)  # above the later cells' white edges
                ax.add_patch(box)
                outlined += 1
    return outlined


def _pair(
    rows: pd.DataFrame, row: MapRow, before: str, after: str
) -> tuple[float, float]:
    """Before and after of one map row for one step (NaN where not measured)."""
    if row.key in rows:
        return _value(rows, before, row.key), _value(rows, after, row.key)
    if row.by_variant:
        return (
            row.by_variant.get(before, math.nan),
            row.by_variant.get(after, math.nan),
        )
    return row.by_step.get(after, (math.nan, math.nan))


def _text(row: MapRow, value: float) -> str:
    """A value of a map row with its unit."""
    if row.key in STEP_METRICS:
        return metric_text(row.key, value)
    quantity = metric_quantity(row.key)
    return quantity.text(value) if quantity and math.isfinite(value) else "n/a"


def _map_axes(ax: Axes, steps: list[tuple[str, str]], labels: list[str]) -> None:
    """The map's axes: one column per step, one row per quantity, no frame or grid."""
    ax.set_xlim(-0.5, len(steps) - 0.5)
    ax.set_ylim(len(labels) - 0.5, -0.5)
    ax.set_xticks(
        range(len(steps)), [f"{short_name(b)}→{short_name(a)}" for b, a in steps]
    )
    # a long row name (three stall reasons) takes two lines, not the grid's width
    ax.set_yticks(range(len(labels)), [textwrap.fill(t, ROW_LABEL) for t in labels])
    ax.tick_params(length=0)
    ax.grid(False)
    for spine in ax.spines.values():
        spine.set_visible(False)
    ax.set_xlabel("step (before → after variant)")


def _ratio_colorbar(
    fig: TippedFigure, ax: Axes, norm: Normalize, outlined: bool
) -> None:
    """The colour scale of the after / before ratios, ticked in powers of two."""
    from matplotlib.cm import ScalarMappable

    mappable = ax.collections[0] if ax.collections else None
    bar = fig.colorbar(
        mappable or ScalarMappable(norm, CMAP),
        ax=ax,
        location="bottom",
        shrink=0.7,
        aspect=40,
        pad=0.02,
    )
    span = int(norm.vmax or RATIO_SPAN)
    every = max(1, math.ceil(span / 4))  # at most 9 ticks
    ticks = list(range(-span, span + 1, every))
    bar.set_ticks(
        ticks, labels=[f"{2.0**t:g}x" if t >= 0 else f"1/{2**-t}x" for t in ticks]
    )
    keys = ["hatched: from or to 0", "n/a: not measured"]
    if outlined:
        keys.append("outlined: the step's primary cause")
    bar.set_label(f"after / before\n({'; '.join(keys)})")


def _cell(
    fig: TippedFigure,
    ax: Axes,
    at: tuple[int, int],
    value: float,
    text: str,
    hatch: bool,
    norm: Normalize,
) -> None:
    """One coloured, written cell of the step-changes map."""
    import matplotlib

    i, j = at
    cmap = matplotlib.colormaps[CMAP]
    colour = cmap(norm(value)) if math.isfinite(value) else (0.93, 0.93, 0.93, 1.0)
    ax.add_patch(
        Rectangle(
            (j - 0.5, i - 0.5),
            1,
            1,
            facecolor=colour,
            edgecolor="white",
            lw=1,
            hatch="////" if hatch else None,
        )
    )
    if not math.isfinite(value):
        text = "n/a"
    dark = math.isfinite(value) and abs(norm(value) - 0.5) > 0.3
    ax.text(
        j,
        i,
        text,
        ha="center",
        va="center",
        fontsize=7,
        color="white" if dark else "black",
        bbox={"boxstyle": "round,pad=0.1", "fc": colour, "ec": "none"}
        if hatch
        else None,
    )


def _counts_cell(
    rows: pd.DataFrame, key: str, before: str, after: str
) -> tuple[float, str, bool]:
    """A share's cell by its counts (:data:`SHARE_COUNTS`), where both sides have them.

    A ratio from 0 is undefined, but the change is measured: "0 → 550" (a count in
    the share's row: the cell's tip names it; SGEMM's "0 → 22.3M conflicts" did not
    fit its cell).
    """
    columns = SHARE_COUNTS[key][0]
    if not set(columns) <= set(rows.columns):
        return math.nan, "", False
    b, a = (sum(_value(rows, v, c) for c in columns) for v in (before, after))
    return ratio_cell(b, a)


def _value(rows: pd.DataFrame, variant: str, column: str) -> float:
    """One cell of a frame indexed by variant, as a float (NaN when missing)."""
    value: Any = rows.loc[variant, column]
    return float(value) if pd.notna(value) else math.nan
