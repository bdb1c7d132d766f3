"""Point labels that do not overlap: each label takes the first free spot around its point.

Placement works on the drawn figure (display coordinates after the layout), so it
sees the real text sizes; a label goes to the first of a few offsets around its
point where it overlaps neither an earlier label, nor a marker, nor the axes edge.
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
    for label in labels:
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
            # with room around: a PDF viewer's glyph boxes are taller than matplotlib's
            box = note.get_window_extent(renderer).expanded(1.1, 1.3)
            cost = sum(_overlap(box, other) for other in [*taken, *marks])
            cost += _outside(box, frame)
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


def _overlap(a: Bbox, b: Bbox) -> float:
    """Area two boxes share (0 when apart)."""
    w = min(a.x1, b.x1) - max(a.x0, b.x0)
    h = min(a.y1, b.y1) - max(a.y0, b.y0)
    return w * h if w > 0 and h > 0 else 0.0


def _outside(box: Bbox, frame: Bbox) -> float:
    """Area of ``box`` outside ``frame``, weighted up: labels stay inside the axes."""
    inside = _overlap(box, frame)
    return 4 * (box.width * box.height - inside)
