"""Point labels that do not overlap: each label takes the first free spot around its point.

Placement works on the drawn figure (display coordinates after the layout), so it
sees the real text sizes; a label goes to the first of a few offsets around its
point where it overlaps neither an earlier label, nor a marker, nor the axes edge,
and where no other point lies nearer to it than its own: a label level with a
neighbour's marker reads as that neighbour's (the roofline's v6 and v7 at one size).
"""

from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.text import Annotation
from matplotlib.transforms import Bbox

from nsightflow.plot.fit import layout_solved

# Offsets (points) tried in order, with the text's alignment at that offset.
CANDIDATES = (
    (5, 4, "left", "bottom"),
    (5, -4, "left", "top"),
    (-5, 4, "right", "bottom"),
    (-5, -4, "right", "top"),
    (0, 7, "center", "bottom"),
    (0, -7, "center", "top"),
    (8, 0, "left", "center"),
    (-8, 0, "right", "center"),
    (10, 13, "left", "bottom"),
    (10, -13, "left", "top"),
    (-10, 13, "right", "bottom"),
    (-10, -13, "right", "top"),
    (0, 20, "center", "bottom"),
    (0, -20, "center", "top"),
)
MARKER_PX = 4.0  # half-size of the box a marker occupies, in pixels at 100 dpi


@dataclass(frozen=True)
class PointLabel:
    """A label for the data point (x, y)."""

    x: float
    y: float
    text: str
    color: str


def place_labels(
    ax: Axes,
    labels: list[PointLabel],
    avoid: list[tuple[float, float]] | None = None,
    fontsize: float = 7,
) -> None:
    """Annotate each point with its label at the first offset that overlaps nothing.

    The figure is drawn once first so the axes have their final place; a label
    with no free spot takes the candidate that overlaps least.

    Args:
        ax: The axes the points are drawn in.
        labels: The points and their labels, placed in this order.
        avoid: Further data points (x, y) whose markers labels must not cover.
        fontsize: Size of the labels in points.
    """
    fig = ax.get_figure()
    if fig is None or not labels:
        return
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    root = fig.get_figure(root=True)
    if not layout_solved(root):  # fit_texts' last round left the layout in place
        root.draw_without_rendering()  # the layout, not the pixels
    scale = fig.dpi / 100
    marks = []
    points = [(label.x, label.y) for label in labels] + list(avoid or [])
    for x, y in points:
        px, py = ax.transData.transform((x, y))
        r = MARKER_PX * scale
        marks.append(Bbox([[px - r, py - r], [px + r, py + r]]))
    frame = ax.get_window_extent(renderer)
    taken: list[Bbox] = []
    for i, label in enumerate(labels):
        best: tuple[float, Annotation] | None = None
        for dx, dy, ha, va in CANDIDATES:
            note = ax.annotate(
                label.text,
                (label.x, label.y),
                xytext=(dx, dy),
                textcoords="offset points",
                ha=ha,
                va=va,
                fontsize=fontsize,
                color=label.color,
            )
            cost = _cost(note.get_window_extent(renderer), taken, marks, i, frame)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, note)
            else:
                note.remove()
            if cost == 0:
                break
        assert best is not None
        taken.append(best[1].get_window_extent(renderer))


def _cost(
    text: Bbox, taken: list[Bbox], marks: list[Bbox], i: int, frame: Bbox
) -> float:
    """How bad a spot is for label ``i`` whose text takes ``text``; 0 where free.

    Text over text is the worst (weighted as text off the axes), then text off the
    axes, then a marker covered or nearer the text than the label's own (``marks[i]``).
    """
    # with room around: a PDF viewer's glyph boxes are taller than matplotlib's
    box = text.expanded(1.1, 1.3)
    cost = 4 * sum(_overlap(box, other) for other in taken)
    cost += sum(_overlap(box, other) for other in marks)
    cost += _outside(box, frame)
    return cost + _misread(text, marks[i], marks[:i] + marks[i + 1 :])


def _overlap(a: Bbox, b: Bbox) -> float:
    """Area two boxes share (0 when apart)."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def _gap(box: Bbox, x: float, y: float) -> float:
    """Distance in pixels from the point (x, y) to the nearest edge of ``box``."""
    dx = max(box.x0 - x, 0.0, x - box.x1)
    dy = max(box.y0 - y, 0.0, y - box.y1)
    return float((dx * dx + dy * dy) ** 0.5)


def _misread(box: Bbox, own: Bbox, others: list[Bbox]) -> float:
    """The box's area for each other marker nearer to it than its own marker.

    As costly as covering the marker: a reader takes a label for the nearest point's.
    Two points closer than half a marker read as one, whichever is labelled.
    """
    slack = (own.x1 - own.x0) / 4
    mine = _gap(box, (own.x0 + own.x1) / 2, (own.y0 + own.y1) / 2)
    nearer = sum(
        _gap(box, (m.x0 + m.x1) / 2, (m.y0 + m.y1) / 2) + slack < mine for m in others
    )
    return float(nearer * box.width * box.height)


def _outside(box: Bbox, frame: Bbox) -> float:
    """Area of ``box`` outside ``frame``, weighted up: labels stay inside the axes."""
    inside = _overlap(box, frame)
    return 4 * (box.width * box.height - inside)
