"""Figures embedded in a page: an SVG inline, else the PNG as a data URI.

An SVG the plot stage wrote beside a PNG goes into the page as it is, so that the
``<title>`` of each point shows as a tooltip with no script. Before that it is parsed
the way the browser will parse it inside the page (html5lib, the HTML5 parsing
algorithm, which also builds inline SVG) and every element and attribute is checked
(:func:`unsafe_svg`): only drawing elements, no event handler, no address that
leaves the page. Text is never inspected, so a title such as "stride one = 1"
passes. The PDF stage, which cannot lay out SVG, prints the PNG instead
(:func:`png_figures`).
"""

import base64
import html
import re
import urllib.parse
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from nsightflow.errors import StageInputError

_NUMBERING = re.compile(r"^\s*\d+(?:\.\d+)*\.?\s+")
_SVG_START = re.compile(r"<svg\b", re.I)
_SVG_NS = "{http://www.w3.org/2000/svg}"
# What matplotlib's SVG backend writes, and other drawing elements that neither act
# nor load: shapes, text, grouping, clipping, gradients, markers. Anything else
# (script, foreignObject, a, animate, set, iframe, filters with feImage, ...) is
# refused; prefixed names (rdf:RDF, dc:title in <metadata>) are inert and pass.
SVG_ELEMENTS = frozenset(
    "svg g defs title desc metadata style path rect circle ellipse line polyline "
    "polygon text tspan textpath use symbol marker clippath mask pattern "
    "lineargradient radialgradient stop image".split()
)
_URL = re.compile(r"url\(\s*['\"]?([^'\")\s]*)", re.I)
_LINK_ATTRS = ("href", "src")
_LOCAL = re.compile(r"^#[\w.:-]*$")
_PICTURE = re.compile(r"^data:image/(png|jpeg|gif);base64,[A-Za-z0-9+/=\s]*$")
_SVG_FIGURE = re.compile(
    r'<div class="svg" data-png="([^"]*)" role="img" aria-label="([^"]*)">.*?</div>',
    re.S,
)


def slug(text: str) -> str:
    """An id from a text: its words, lower case, without a leading section number."""
    words = re.findall(r"\w+", _NUMBERING.sub("", text).lower())
    return "-".join(words)[:60] or "section"  # contracts: literal


def figure_id(src: str) -> str:
    """The id of a figure's ``<figure>``: ``figures/roofline.png`` -> ``figure-roofline``."""
    return f"figure-{slug(Path(src).stem)}"


def figure(
    src: str, alt: str, base_dir: Path | None, roots: Sequence[Path] = ()
) -> str:
    """A ``<figure>`` of a PNG: its SVG twin inline if there is one, else the PNG.

    No caption: the figure's own title says what it shows; ``alt`` is its text for
    screen readers. Without ``base_dir``, or without the file, the image stays a link.

    Raises:
        StageInputError: The SVG holds a script, an event handler or a link out,
            or the figure is not a file of the report's folders (:func:`own_file`).
    """
    esc = html.escape
    path = own_file(src, base_dir, roots)
    if path is not None and path.with_suffix(".svg").is_file():
        svg = inline_svg(path.with_suffix(".svg"))
        body = (
            f'<div class="svg" data-png="{esc(src)}" role="img" '
            f'aria-label="{esc(alt)}">{svg}</div>'
        )
    elif path is not None and path.is_file():
        body = f'<img alt="{esc(alt)}" src="{data_uri(path)}" />'
    else:
        body = f'<img alt="{esc(alt)}" src="{esc(src)}" />'
    return f'<figure id="{figure_id(src)}">{body}</figure>'


def own_file(
    src: str, base_dir: Path | None, roots: Sequence[Path] = ()
) -> Path | None:
    """The file a figure's address names, inside the report's folders.

    A page embeds (and the PDF stage opens) only the report's own figures: the
    address is a path, without scheme, host, backslash or NUL, and resolves
    (``..`` and links followed) inside ``base_dir`` or one of ``roots`` (the
    report stage's figures folder, where that lies elsewhere). The plot stage
    writes nothing else; any other address reached the page from text that was
    not escaped, and is refused before the file is opened.

    Args:
        src: The ``src`` of an ``<img>`` (or a figure's Markdown link).
        base_dir: The folder a relative address resolves against; None: no file
            is read, and only a relative address that stays below it passes.
        roots: Other folders the file may lie in.

    Returns:
        The resolved file (it may not exist), or None without ``base_dir``.

    Raises:
        StageInputError: The address is not a path, or names a file elsewhere.
    """
    parts = urllib.parse.urlsplit(src)
    rel = PurePosixPath(urllib.parse.unquote(parts.path))
    climbs = rel.is_absolute() or ".." in rel.parts
    odd = parts.scheme or parts.netloc or "\\" in src or "\0" in src
    if odd or not parts.path or (base_dir is None and climbs):
        raise StageInputError(
            f"figure {src[:200]!r} is not a file of the report's folder: a report "
            "embeds only its own figures (figures/<name>.png); re-run the report stage"
        )
    if base_dir is None:
        return None
    path = (base_dir / rel).resolve()
    folders = [Path(r).resolve() for r in (base_dir, *roots)]
    if not any(path.is_relative_to(folder) for folder in folders):
        raise StageInputError(
            f"figure {src[:200]!r} resolves to {path}, outside the report's folder "
            f"{folders[0]}: a report embeds only its own figures; remove the link"
        )
    return path


def data_uri(path: Path) -> str:
    """A PNG file as a ``data:`` URI."""
    return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode()


def inline_svg(path: Path) -> str:
    """An SVG file's ``<svg>`` element, checked to hold nothing that acts or loads.

    Raises:
        StageInputError: The file is not an SVG or holds a script, an event handler
            or an address out of the page (:func:`unsafe_svg`).
    """
    text = path.read_text(encoding="utf-8")
    start = _SVG_START.search(text)
    if start is None:
        raise StageInputError(f"{path}: not an SVG file (no <svg> element); re-plot")
    bad = unsafe_svg(text)
    if bad is not None:
        raise StageInputError(
            f"{path}: holds {bad}, which a report page does not embed (the plot "
            "stage never writes it); delete the file and re-run the plot stage"
        )
    return text[start.start() :].strip()


def unsafe_svg(text: str) -> str | None:
    """The first element or attribute of ``text`` that could act or load, or None.

    ``text`` is parsed as the page will parse it (an HTML fragment holding SVG).
    Allowed: the elements of :data:`SVG_ELEMENTS` in the SVG namespace (and
    prefixed metadata names); attributes other than ``on*`` handlers, with
    ``href``/``src`` and every ``url(...)`` pointing inside the page (``#id``) or at
    an embedded raster image; ``<style>`` without ``@import`` or outside ``url()``.
    """
    import html5lib

    doc = html5lib.parseFragment(text, treebuilder="etree", namespaceHTMLElements=False)
    for element in doc.iter():
        if not isinstance(element.tag, str) or element.tag == "DOCUMENT_FRAGMENT":
            continue  # comments (and the <?xml ...?> line, read as one)
        name = element.tag.removeprefix(_SVG_NS)
        inside = element.tag.startswith(_SVG_NS)
        if not inside or (name.lower() not in SVG_ELEMENTS and ":" not in name):
            return f"the element <{name}>"
        for attr, value in element.attrib.items():
            local = attr.rsplit("}", 1)[-1].rsplit(":", 1)[-1].lower()
            if local.startswith("on") or _loads(local, value):
                return f"the attribute {local}={value[:60]!r} on <{name}>"
        if name.lower() == "style" and _loads("style", element.text or ""):
            return "a <style> that loads from outside the page"
    return None


def _loads(attribute: str, value: str) -> bool:
    """Whether an attribute's value points out of the page (or runs code)."""
    if attribute in _LINK_ATTRS:
        address = value.strip()
        return not (_LOCAL.match(address) or _PICTURE.match(address))
    lowered = value.lower()
    if "@import" in lowered or "javascript:" in lowered or "expression(" in lowered:
        return True
    return any(not _LOCAL.match(m.strip()) for m in _URL.findall(value))


def png_figures(page_html: str) -> str:
    """The page with each inline SVG figure replaced by its PNG (for the PDF stage)."""
    return _SVG_FIGURE.sub(
        lambda m: f'<img alt="{m.group(2)}" src="{m.group(1)}" />', page_html
    )
