"""Saving figures: a PNG for Markdown and the PDF, an SVG beside it for the HTML page.

The SVG keeps its text as text (``svg.fonttype: none``). A figure built with
:func:`tipped_figure` carries tooltips: each data point that should show its value is
drawn as its own artist with a ``gid``, and :func:`save` puts an SVG ``<title>``
(``variant, size, value unit``) into the element with that id, which browsers show on
hover with no script.
"""

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from matplotlib.artist import Artist
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from nsightflow.plot.fit import layout_solved
from nsightflow.plot.style import DPI, matplotlib_context

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"
TIP_PREFIX = "nsf-tip-"
FIGURE_ATTR = "data-nsf-figure"  # on the <svg> root: the figure's stem


class TippedFigure(Figure):
    """A figure that remembers a tooltip text for some of its artists."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tooltips: dict[str, str] = {}

    def tip(self, artist: Artist, text: str) -> None:
        """Give ``artist`` an id and the tooltip ``text`` in the SVG."""
        gid = f"{TIP_PREFIX}{len(self.tooltips)}"
        artist.set_gid(gid)
        self.tooltips[gid] = text


def tipped_figure(width: float, height: float) -> TippedFigure:
    """An empty figure (constrained layout, Agg canvas) that can carry tooltips."""
    fig = TippedFigure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def add_titles(svg: Path, tooltips: dict[str, str], name: str) -> int:
    """Insert a ``<title>`` into each element of ``svg`` whose id has a tooltip.

    The root also gets ``data-nsf-figure="<name>"`` (the stem relative to the
    figures folder), by which the PDF stage finds the PNG of an SVG inlined in
    the report page.

    Returns:
        How many titles were inserted.
    """
    ET.register_namespace("", SVG_NS)
    ET.register_namespace("xlink", XLINK_NS)
    tree = ET.parse(svg)
    tree.getroot().set(FIGURE_ATTR, name)
    inserted = 0
    for element in tree.getroot().iter():
        text = tooltips.get(element.get("id", ""))
        if text is None:
            continue
        title = ET.Element(f"{{{SVG_NS}}}title")
        title.text = text  # ElementTree escapes it: data stays text
        element.insert(0, title)
        inserted += 1
    tree.write(svg, encoding="utf-8", xml_declaration=True)
    return inserted


def save(fig: Figure, folder: Path, name: str) -> list[Path]:
    """Write ``<folder>/<name>.png`` and ``.svg`` (with tooltips) of one figure.

    Args:
        fig: The figure.
        folder: The figures folder.
        name: The figure's stem relative to ``folder`` (``roofline``,
            ``steps/step_v1_tiled32``).
    """
    stem = folder / name
    stem.parent.mkdir(parents=True, exist_ok=True)
    png, svg = stem.parent / f"{stem.name}.png", stem.parent / f"{stem.name}.svg"
    with matplotlib_context():  # svg.fonttype is read when saving
        if layout_solved(fig):
            # fit_texts' last round laid the figure out with these texts: the PNG is
            # drawn on that layout, not on a layout solved once more
            fig.set_layout_engine("none")
        fig.savefig(png, dpi=DPI)
        # the layout the PNG was drawn with holds for the SVG (figure fractions, text
        # in points): not solved a second time, a third of a figure's drawing time
        fig.set_layout_engine("none")
        fig.savefig(svg)
    add_titles(svg, getattr(fig, "tooltips", {}), name)
    return [png, svg]
