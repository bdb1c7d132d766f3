"""Overlapping or clipped text in a figure as a PDF viewer and a browser lay it out.

On pytest's path (pyproject `pythonpath = ["tests"]`). The PNG check is the package's
own (:func:`nsightflow.plot.check.text_overlaps`, matplotlib's extents); here:

- :func:`pdf_problems`: the figure saved as PDF with TrueType text (so poppler knows
  each glyph's real height), every word's box from ``pdftotext -bbox``, and pairs of
  words from different lines whose boxes overlap, or words off the page;
- :data:`SVG_TEXT_BOXES`: a script for a browser that has the SVG open, returning
  each ``<text>`` element's box as the browser laid it out, which
  :func:`box_problems` checks the same way.
"""

import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib
from matplotlib.figure import Figure

from nsightflow.plot.style import matplotlib_context

SLACK = 0.5  # points (PDF) or CSS pixels (SVG): boxes that touch do not overlap
Box = tuple[str, float, float, float, float]  # text, x0, y0, x1, y1


def pdftotext() -> str | None:
    """Path of poppler's pdftotext (apt-get install poppler-utils), or None."""
    return shutil.which("pdftotext")


def pdf_words(pdf: Path) -> tuple[list[Box], tuple[float, float]]:
    """Every word of a one-page PDF with its box, and the page's size (points)."""
    out = subprocess.run(
        ["pdftotext", "-bbox", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    root = ET.fromstring(out.replace(' xmlns="http://www.w3.org/1999/xhtml"', ""))
    page = root.find(".//page")
    assert page is not None, pdf
    words = [
        (
            w.text or "",
            float(w.get("xMin", 0)),
            float(w.get("yMin", 0)),
            float(w.get("xMax", 0)),
            float(w.get("yMax", 0)),
        )
        for w in page.iter("word")
    ]
    return words, (float(page.get("width", 0)), float(page.get("height", 0)))


def pdf_problems(fig: Figure, pdf: Path) -> list[tuple[str, str]]:
    """Words of ``fig`` as a PDF that overlap another word or leave the page."""
    with matplotlib_context(), matplotlib.rc_context({"pdf.fonttype": 42}):
        fig.savefig(pdf)
    words, (width, height) = pdf_words(pdf)
    return box_problems(words, (0.0, 0.0, width, height))


def box_problems(
    boxes: list[Box], frame: tuple[float, float, float, float]
) -> list[tuple[str, str]]:
    """Pairs of boxes that overlap (words of one line never do), boxes off ``frame``."""
    x0, y0, x1, y1 = frame
    found = []
    for i, (text, a0, b0, a1, b1) in enumerate(boxes):
        if a0 < x0 - SLACK or b0 < y0 - SLACK or a1 > x1 + SLACK or b1 > y1 + SLACK:
            found.append((text, "<outside>"))
        for other, c0, d0, c1, d1 in boxes[i + 1 :]:
            if min(a1, c1) - max(a0, c0) > SLACK and min(b1, d1) - max(b0, d0) > SLACK:
                found.append((text, other))
    return found


# Run in a browser with an SVG document open: [text, left, top, right, bottom] of
# every <text> drawn, as the browser laid it out with its own fonts (CSS pixels on
# the page), and the drawing's own box.
SVG_TEXT_BOXES = """
const svg = document.documentElement;
const out = [];
for (const t of svg.querySelectorAll('text')) {
  if (!t.textContent.trim() || getComputedStyle(t).display === 'none') continue;
  const r = t.getBoundingClientRect();
  out.push([t.textContent, r.left, r.top, r.right, r.bottom]);
}
const f = svg.getBoundingClientRect();
return [out, [f.left, f.top, f.right, f.bottom]];
"""


def svg_problems(boxes: list[list], frame: list[float]) -> list[tuple[str, str]]:
    """:func:`box_problems` of the boxes :data:`SVG_TEXT_BOXES` returned."""
    return box_problems([tuple(b) for b in boxes], tuple(frame))  # type: ignore[misc]
