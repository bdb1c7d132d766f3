"""Readability checks of a drawn figure: text that overlaps or leaves the canvas.

Used by the tests on every figure of the bundled recording; the boxes are
matplotlib's own window extents of each visible text after the layout ran.
"""

from typing import Any

from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import BboxBase

SLACK_PX = 0.5  # boxes that touch within half a pixel do not count as overlapping


def visible_texts(fig: Figure) -> list[Text]:
    """Every drawn, non-empty text of the figure (ticks, labels, legends, notes)."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    fig.canvas.draw()
    hidden: set[int] = (
        set()
    )  # tick labels matplotlib keeps but does not draw (off the view)
    for ax in fig.axes:
        axes: list[Any] = [ax.xaxis, ax.yaxis]
        for axis in axes:
            drawn = set(axis._update_ticks())  # the ticks inside the view
            for tick in [*axis.majorTicks, *axis.minorTicks]:
                if tick not in drawn:
                    hidden.update((id(tick.label1), id(tick.label2)))
    texts = []
    for text in fig.findobj(Text):
        if id(text) in hidden or not text.get_visible() or not text.get_text().strip():
            continue
        box = text.get_window_extent(renderer)
        if box.width > 0 and box.height > 0:
            texts.append(text)
    return texts


def text_overlaps(fig: Figure) -> list[tuple[str, str]]:
    """Pairs of visible texts whose boxes overlap, and texts off the canvas."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    texts = visible_texts(fig)
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in texts]
    canvas = fig.bbox
    problems: list[tuple[str, str]] = []
    for i, (text_a, a) in enumerate(boxes):
        if not _inside(a, canvas):
            problems.append((text_a, "<outside the figure>"))
        for text_b, b in boxes[i + 1 :]:
            if _overlap(a, b):
                problems.append((text_a, text_b))
    return problems


def _overlap(a: BboxBase, b: BboxBase) -> bool:
    return bool(
        min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK_PX
        and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK_PX
    )


def _inside(box: BboxBase, canvas: BboxBase) -> bool:
    return bool(
        box.x0 >= canvas.x0 - SLACK_PX
        and box.x1 <= canvas.x1 + SLACK_PX
        and box.y0 >= canvas.y0 - SLACK_PX
        and box.y1 <= canvas.y1 + SLACK_PX
    )
