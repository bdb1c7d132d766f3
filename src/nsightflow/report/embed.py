"""Figures embedded in a page: an SVG inline, else the PNG as a data URI.

An SVG the plot stage wrote beside a PNG goes into the page as it is, so that the
``<title>`` of each point shows as a tooltip with no script; it is checked to hold
nothing that acts or loads (a script, an event handler, a link out of the page). The
PDF stage, which cannot lay out SVG, prints the PNG instead (:func:`png_figures`).
"""

import base64
import html
import re
from pathlib import Path

from nsightflow.errors import StageInputError

_NUMBERING = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")
_SVG_START = re.compile(r"<svg\b", re.I)
_UNSAFE_SVG = re.compile(
    r"<(?:script|foreignObject|iframe)\b|\son\w+\s*=|"
    r"""(?:xlink:)?href\s*=\s*["'](?!#|data:image/)""",
    re.I,
)
_SVG_FIGURE = re.compile(
    r'<div class="svg" data-png="([^"]*)" role="img" aria-label="([^"]*)">.*?</div>',
    re.S,
)


def slug(text: str) -> str:
    """An id from a text: its words, lower case, without a leading section number."""
    words = re.findall(r"\w+", _NUMBERING.sub("", text).lower())
    return "-".join(words)[:60] or "section"


def figure_id(src: str) -> str:
    """The id of a figure's ``<figure>``: ``figures/roofline.png`` -> ``figure-roofline``."""
    return f"figure-{slug(Path(src).stem)}"


def figure(src: str, alt: str, base_dir: Path | None) -> str:
    """A ``<figure>`` of a PNG: its SVG twin inline if there is one, else the PNG.

    No caption: the figure's own title says what it shows; ``alt`` is its text for
    screen readers. Without ``base_dir``, or without the file, the image stays a link.

    Raises:
        StageInputError: The SVG holds a script, an event handler or a link out.
    """
    esc = html.escape
    if base_dir is not None and (base_dir / src).with_suffix(".svg").is_file():
        svg = inline_svg((base_dir / src).with_suffix(".svg"))
        body = (
            f'<div class="svg" data-png="{esc(src)}" role="img" '
            f'aria-label="{esc(alt)}">{svg}</div>'
        )
    elif base_dir is not None and (base_dir / src).is_file():
        body = f'<img alt="{esc(alt)}" src="{data_uri(base_dir / src)}" />'
    else:
        body = f'<img alt="{esc(alt)}" src="{esc(src)}" />'
    return f'<figure id="{figure_id(src)}">{body}</figure>'


def data_uri(path: Path) -> str:
    """A PNG file as a ``data:`` URI."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def inline_svg(path: Path) -> str:
    """An SVG file's ``<svg>`` element, checked to hold nothing that acts or loads.

    Raises:
        StageInputError: The file is not an SVG or holds a script, an event handler
            or a link out of the page.
    """
    text = path.read_text(encoding="utf-8")
    start = _SVG_START.search(text)
    if start is None:
        raise StageInputError(f"{path}: not an SVG file (no <svg> element); re-plot")
    bad = _UNSAFE_SVG.search(text)
    if bad is not None:
        raise StageInputError(
            f"{path}: holds {bad.group(0).strip()!r}, which a report page does not "
            "embed; delete the file and re-run the plot stage"
        )
    return text[start.start() :].strip()


def png_figures(page_html: str) -> str:
    """The page with each inline SVG figure replaced by its PNG (for the PDF stage)."""
    return _SVG_FIGURE.sub(
        lambda m: f'<img alt="{m.group(2)}" src="{m.group(1)}" />', page_html
    )
