"""Titles, axis labels and legends that fit the room they have, never clipped.

A panel's title and x-axis label may be no wider than its panel (two titles side
by side would otherwise run into each other), the figure's title no wider than the
figure, a y-axis label no taller than its axes: :func:`fit_texts` measures each
after the layout, wraps the ones that are too long at word boundaries, slants x tick
labels that would touch, and lets the constrained layout make room at the next
draw. A figure legend takes as many columns as fit the figure's width
(:func:`figure_legend`).
"""

import textwrap
import weakref
from itertools import pairwise
from typing import Any

from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.text import Text

ROUNDS = 4  # fit, re-measure: what still does not fit is wrapped shorter
GAP_PX = 3.0  # tick labels closer than this side by side are slanted
SLANTS = (30.0, 90.0)  # degrees: slanted where that makes room, else upright

# Figures whose last fitting round laid them out with the texts they are saved with:
# savefig draws them on that layout instead of solving it again (SGEMM: 38 -> 24
# constrained layouts for 14 figures)
_SOLVED: "weakref.WeakSet[Figure]" = weakref.WeakSet()


def layout_solved(fig: Figure) -> bool:
    """Whether :func:`fit_texts` left ``fig`` laid out for the texts it has now."""
    return fig in _SOLVED


def figure_legend(
    fig: Figure, handles: list[Any], loc: Any = "outside lower center", ncols: int = 4
) -> Legend:
    """A legend of the figure in at most ``ncols`` columns, as many as fit its width."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    for columns in range(max(ncols, 1), 0, -1):
        legend = fig.legend(handles=handles, loc=loc, ncols=columns)
        if columns == 1 or legend.get_window_extent(renderer).width <= fig.bbox.width:
            return legend
        legend.remove()
    raise AssertionError("unreachable")  # columns == 1 returns


def lay_out(fig: Figure) -> None:
    """Solve the figure's layout: the axes' places and sizes, no drawing.

    What a draw does before it draws, and all that the measures below read: text
    sizes, axes frames, tick labels (updated where they are read). The null draw
    that follows the layout in ``draw_without_rendering`` was a third of every
    fitting round.
    """
    engine = fig.get_layout_engine()
    if engine is None or not fig.axes:
        fig.draw_without_rendering()
        return
    engine.execute(fig)


def fit_texts(fig: Figure) -> None:
    """Wrap every title and axis label of ``fig`` that is longer than its room."""
    for _ in range(ROUNDS):
        renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
        lay_out(fig)
        changed = False
        for ax in fig.axes:
            frame = ax.get_window_extent(renderer)
            for name in ("title", "_left_title", "_right_title"):
                title = getattr(ax, name, None)
                if isinstance(title, Text):
                    changed |= _wrap(title, frame.width, renderer, vertical=False)
            changed |= _slant_crowded_ticks(ax, renderer)
            room = _row_room(fig, ax, renderer)
            changed |= _wrap(ax.xaxis.label, room, renderer, vertical=False)
            changed |= _wrap(ax.yaxis.label, frame.height, renderer, vertical=True)
        suptitle = getattr(fig, "_suptitle", None)  # matplotlib keeps no public handle
        if isinstance(suptitle, Text):
            changed |= _wrap(suptitle, fig.bbox.width * 0.98, renderer, vertical=False)
        if not changed:
            _SOLVED.add(fig)
            return


def _row_room(fig: Figure, ax: Any, renderer: Any) -> float:
    """The width an axes' x label may take: its own, or the figure's if alone in its row."""
    frame = ax.get_window_extent(renderer)
    beside = [
        other
        for other in fig.axes
        if other is not ax
        and min(frame.y1, other.get_window_extent(renderer).y1)
        > max(frame.y0, other.get_window_extent(renderer).y0)
    ]
    return frame.width if beside else fig.bbox.width * 0.96


def _slant_crowded_ticks(ax: Any, renderer: Any) -> bool:
    """Slant an x axis's tick labels where two would touch: 30 degrees, else upright."""
    labels = [t for t in ax.get_xticklabels() if t.get_text() and t.get_visible()]
    if len(labels) < 2 or labels[0].get_rotation() != 0 or _apart(labels, renderer):
        return False
    for angle in SLANTS:
        for label in labels:
            label.set_rotation(angle)
            label.set_horizontalalignment("right" if angle < 90 else "center")
            label.set_rotation_mode("anchor" if angle < 90 else "default")
        if _apart(labels, renderer):
            break
    return True


def _apart(labels: list[Text], renderer: Any) -> bool:
    """Whether the labels' boxes keep :data:`GAP_PX` apart side by side."""
    boxes = sorted((t.get_window_extent(renderer) for t in labels), key=lambda b: b.x0)
    return all(a.x1 + GAP_PX <= b.x0 for a, b in pairwise(boxes))


def _wrap(text: Text, room: float, renderer: Any, vertical: bool) -> bool:
    """Re-wrap ``text`` shorter where it is longer than ``room`` pixels."""
    content = text.get_text()
    if not content.strip() or not text.get_visible():
        return False
    box = text.get_window_extent(renderer)
    length = box.height if vertical else box.width
    if length <= room:
        return False
    longest = max(len(line) for line in content.splitlines())
    width = max(8, int(longest * room / length * 0.92))
    wrapped = "\n".join(
        textwrap.fill(line, width, break_on_hyphens=False)
        for line in content.splitlines()
    )
    if wrapped == content:
        return False
    text.set_text(wrapped)
    return True
