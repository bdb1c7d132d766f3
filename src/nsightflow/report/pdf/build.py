"""PDF output: a printable A4 ``report.pdf`` from the standalone report HTML.

:func:`write_pdf` renders the page :func:`nsightflow.report.html.to_html` returns with
xhtml2pdf (HTML and CSS laid out by ReportLab): pure Python from PyPI, with no
browser, no LaTeX and no system library, so a machine that only pip-installs the
project can render an English report (a Chinese one also needs a CJK font
package). A print stylesheet is added after the report's own screen style, and the page is prepared for paper first:

* A4 portrait pages with a running footer (report title, page N).
* Tables span the text width with columns sized from their content
  (:mod:`nsightflow.report.pdf.tables`); a table too wide for the page is split
  into tables of column groups, each led by the first column. No text is set
  below MIN_FONT_PT (8 pt): tables, code and the footer included.
* Code blocks are monospace, wrap long lines and split between pages.
* Links print as their text followed by their address in brackets.
* Figures are read relative to the report folder, checked before the render,
  and printed at their own resolution, shrunk to the text width and to at most
  MAX_FIGURE_HEIGHT_PT. An SVG figure of the page (inline or linked) prints as
  the PNG the plot stage wrote beside it.

Fonts (:mod:`nsightflow.report.pdf.fonts`): DejaVu Sans and DejaVu Sans Mono, embedded
from the copy matplotlib ships. A Chinese report also embeds a CJK TrueType font
(WenQuanYi Micro Hei from Debian's ``fonts-wqy-microhei``), so its pages show real
glyphs in any viewer; an English report keeps the non-embedded ``STSong-Light``
fallback for stray Chinese characters. Figures are PNGs drawn by matplotlib (text
in English; Chinese from the manifests drawn with the same CJK font where it is
installed). The footer is in the report's language.
"""

import base64
import io
import logging
import math
import re
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from html import escape, unescape
from pathlib import Path
from typing import BinaryIO

from nsightflow import i18n
from nsightflow.errors import StageInputError
from nsightflow.report.embed import own_file, png_figures
from nsightflow.report.pdf.contents import number_contents
from nsightflow.report.pdf.fonts import CJK_FONT_FAMILY, cjk_font_file
from nsightflow.report.pdf.fonts import Meter as _Meter
from nsightflow.report.pdf.fonts import dejavu_dir as _dejavu_dir
from nsightflow.report.pdf.fonts import font_css as _font_css
from nsightflow.report.pdf.paper import NUMBER_ROOM_PT, TOC_STYLE, paper_page
from nsightflow.report.pdf.tables import (
    ATTR_VALUE,
    CODE_IN_TABLE,
    MARGIN_MM,
    MIN_FONT_PT,
    MM,
    TABLE_FONT_PT,
    TEXT_WIDTH_PT,
    size_tables,
    split_wide_tables,
)

# A figure leaves room for text on its page: at most 100 mm of the 265 mm text area
# (a 120 mm roofline left half a page blank above it when it did not fit)
MAX_FIGURE_HEIGHT_PT = 100 * MM
DEFAULT_IMAGE_DPI = 96.0  # CSS pixels, for an image that states no resolution
RENDER_LIMIT_S = 300.0  # abandon a runaway render (the Jacobi report takes ~1 s)


PRINT_STYLE = """
@page {
    size: a4 portrait;
    margin: 14mm %(margin)smm 18mm %(margin)smm;
    @frame footer {
        -pdf-frame-content: nsf-footer;
        bottom: 8mm; height: 6mm;
        margin-left: %(margin)smm; margin-right: %(margin)smm;
    }
}
body { font-family: %(sans)s; font-size: 9pt; line-height: 1.35; color: #222222;
       margin: 0; padding: 0; }
h1, h2, h3, h4, h5, h6 { color: #111111; -pdf-keep-with-next: true;
                         margin: 0; padding: 0; }
h1 { font-size: 16pt; padding-bottom: 4pt; }
h2 { font-size: 13pt; padding-top: 10pt; padding-bottom: 3pt;
     border-bottom: 0.5pt solid #bbbbbb; }
h3 { font-size: 11pt; padding-top: 8pt; padding-bottom: 2pt; }
h4, h5, h6 { font-size: 9.5pt; padding-top: 6pt; }
p, li, blockquote, h1, h2, h3, h4, h5, h6, pre, code, td, th {
    overflow-wrap: anywhere; }
p { margin: 0; padding-top: 3pt; padding-bottom: 3pt; }
ul, ol { margin-top: 2pt; margin-bottom: 2pt; }
li { padding-bottom: 1pt; }
blockquote { margin: 4pt 0 4pt 8pt; padding: 2pt 0 2pt 6pt; color: #444444;
             border-left: 2pt solid #cccccc; background-color: #fafafa; }
code { font-family: %(mono)s; font-size: 90%%; background-color: #f3f4f6; }
pre { font-family: %(mono)s; font-size: %(min_font)spt; line-height: 1.25;
      white-space: pre-wrap; background-color: #f6f8fa;
      border: 0.5pt solid #e1e4e8; padding: 5pt; margin: 4pt 0; }
pre code { font-size: 100%%; background-color: #f6f8fa; }
/* the page's print style keeps a code block whole: one that fits a page moved to
   the next whole, leaving up to three quarters of a page blank (Jacobi-2D's step
   diffs); it splits between lines instead */
pre { page-break-inside: auto; }
table { font-size: %(table_font)spt; line-height: 1.2; margin: 4pt 0;
        width: 100%%; }
th, td { border: 0.5pt solid #cccccc; padding: 2pt 3pt 1pt 3pt;
         vertical-align: top; }
th { background-color: #f0f0f0; }
td code, th code { font-size: %(code_in_table)s%%; }
img { margin: 4pt 0; }
#nsf-footer { font-size: %(min_font)spt; color: #777777; text-align: center; }
"""

_IMG_TAG = re.compile(r"<img\b[^>]*>", re.IGNORECASE)
_SRC_ATTR = re.compile(r"""\ssrc\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
_IMG_SIZE_ATTRS = re.compile(rf"\s(?:width|height|style){ATTR_VALUE}", re.I)
_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.I | re.S)
_BODY_OPEN = re.compile(r"<body\b[^>]*>", re.I)
_HEAD_CLOSE = re.compile(r"</head\s*>", re.I)
_HTML_LANG = re.compile(r"""<html\b[^>]*?\slang\s*=\s*["']?([A-Za-z]+)""", re.I)


def _print_size(image: BinaryIO | Path, name: str) -> tuple[float, float]:
    """Printed width and height of an image, in points, after checking it reads.

    The image prints at its own resolution (its dpi, or 96 without one), shrunk
    to the text width and to MAX_FIGURE_HEIGHT_PT.

    Args:
        image: The image file, or its bytes as a stream.
        name: What to call the image in an error.

    Raises:
        StageInputError: The image cannot be read.
    """
    from PIL import Image

    try:
        with Image.open(image) as opened:
            width_px, height_px = opened.size
            dpi: object = opened.info.get("dpi")
            opened.verify()
    except Exception as exc:  # PIL raises several types for a corrupt file
        raise StageInputError(
            f"PDF report: figure {name} cannot be read as an image ({exc})"
        ) from exc
    dpi_x = dpi_y = DEFAULT_IMAGE_DPI
    if isinstance(dpi, tuple) and len(dpi) == 2:
        x, y = (float(value) for value in dpi)
        if all(math.isfinite(d) and d >= 10 for d in (x, y)):
            dpi_x, dpi_y = x, y
    width, height = width_px * 72 / dpi_x, height_px * 72 / dpi_y
    scale = min(1.0, TEXT_WIDTH_PT / width, MAX_FIGURE_HEIGHT_PT / height)
    return width * scale, height * scale


def _figure(src: str, base_dir: Path) -> tuple[str, Path | None, float, float]:
    """Where an ``<img src>`` points, checked, and the image's printed size.

    Args:
        src: The ``src`` attribute, unescaped.
        base_dir: Folder a relative source is resolved against.

    Returns:
        The source to render from (an absolute path, or the ``data:`` URI as it
        is), the file's path (None for a data URI), and width and height in
        points.

    Raises:
        StageInputError: The source is remote, or the image is missing or
            cannot be read.
    """
    if src.startswith("data:"):
        header, _, payload = src.partition(",")
        try:
            if header.endswith(";base64"):
                data = base64.b64decode(payload, validate=False)
            else:
                data = urllib.parse.unquote_to_bytes(payload)
        except ValueError as exc:
            raise StageInputError(
                f"PDF report: an embedded figure is not valid base64 ({exc})"
            ) from exc
        return (src, None, *_print_size(io.BytesIO(data), "embedded in the page"))
    try:
        path = own_file(src, base_dir)
    except StageInputError as exc:
        raise StageInputError(f"PDF report: {exc}") from exc
    if path is None or not path.is_file():
        raise StageInputError(
            f"PDF report: figure {src!r} is missing (looked for {path}); run the "
            "plot stage first or fix the link in the report"
        )
    path = path.resolve()
    return (path.as_posix(), path, *_print_size(path, str(path)))


def _local_figures(html: str, base_dir: Path) -> tuple[str, list[Path]]:
    """Check every ``<img>``, point it at its absolute file and give it a print size.

    Args:
        html: The report page.
        base_dir: Folder relative image sources are resolved against.

    Returns:
        The rewritten page and the folders its image files are in.

    Raises:
        StageInputError: A figure is remote, missing or unreadable.
    """
    folders: list[Path] = []

    def rewrite(match: re.Match[str]) -> str:
        tag = match.group(0)
        src_match = _SRC_ATTR.search(tag)
        if src_match is None:
            return ""  # an image without a source draws nothing anyway
        src = unescape(next(group for group in src_match.groups() if group is not None))
        source, path, width, height = _figure(src.strip(), base_dir)
        if path is not None and path.parent not in folders:
            folders.append(path.parent)
        new_src = f' src="{escape(source)}"'
        tag = _SRC_ATTR.sub(lambda _: new_src, tag, count=1)
        tag = _IMG_SIZE_ATTRS.sub("", tag).removesuffix(">").removesuffix("/").rstrip()
        return f'{tag} style="width: {width:.1f}pt; height: {height:.1f}pt" />'

    return _IMG_TAG.sub(rewrite, html), folders


def _print_page(html: str, font_css: str, sans: str, mono: str) -> str:
    """The page with the print stylesheet and the running footer added."""
    title_match = _TITLE.search(html)
    title = " ".join(unescape(title_match.group(1)).split()) if title_match else ""
    style = PRINT_STYLE % {
        "margin": f"{MARGIN_MM:g}",
        "sans": sans,
        "mono": mono,
        "table_font": f"{TABLE_FONT_PT:g}",
        "code_in_table": f"{100 * CODE_IN_TABLE:g}",
        "min_font": f"{MIN_FONT_PT:g}",
    }
    # the contents' entries are set in the CJK font on a Chinese page (it has Latin
    # glyphs too)
    toc = TOC_STYLE % {
        "sans": CJK_FONT_FAMILY if CJK_FONT_FAMILY in sans else sans,
        "number_room": f"{NUMBER_ROOM_PT:g}",
    }
    style_tag = f"<style>\n{font_css}{style}{toc}</style>\n"
    pages = i18n.T("pdf_page", page="<pdf:pagenumber />")
    footer = (
        f'<div id="nsf-footer">{escape(title)}{" &middot; " if title else ""}'
        f"{pages}</div>\n"
    )
    if _HEAD_CLOSE.search(html):
        html = _HEAD_CLOSE.sub(lambda m: style_tag + m.group(0), html, count=1)
    else:
        html = style_tag + html
    if _BODY_OPEN.search(html):
        return _BODY_OPEN.sub(lambda m: m.group(0) + footer, html, count=1)
    return footer + html


@contextmanager
def _quiet(logger_name: str) -> Iterator[None]:
    """Hold a library's logger at ERROR while it renders.

    xhtml2pdf warns once per character that no font can draw and for each screen
    CSS property it does not implement (``overflow-x``, ``border-collapse``);
    figures, the one thing it would otherwise drop with only a warning, are
    checked before the render.
    """
    logger = logging.getLogger(logger_name)
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def page_language(html: str) -> i18n.Language:
    """The report language a page declares in ``<html lang>`` (English without one)."""
    match = _HTML_LANG.search(html)
    code = match.group(1).lower() if match else ""
    return (
        i18n.parse_language(code) if code in i18n.LANGUAGES else i18n.DEFAULT_LANGUAGE
    )


def _prepare(html: str, base_dir: Path, language: str) -> tuple[str, list[Path]]:
    """The page ready for xhtml2pdf, and the folders it may read files from.

    Raises:
        StageInputError: A figure cannot be printed, or a Chinese page has no
            CJK font to embed.
    """
    font_dir = _dejavu_dir()
    cjk_file = cjk_font_file() if language == "zh" else None
    font_css, sans, mono = _font_css(font_dir, cjk_file)
    # inline SVG figures print as their PNG, which xhtml2pdf can lay out; on paper
    # a link shows its address after its text (the contents' links stay links)
    page = paper_page(png_figures(html))
    page, figure_dirs = _local_figures(page, base_dir)
    with i18n.language(language):
        meter = _Meter(font_dir)
        page = size_tables(split_wide_tables(page, meter), meter)
        page = _print_page(page, font_css, sans, mono)
    fonts = [d for d in (font_dir, cjk_file.parent if cjk_file else None) if d]
    return page, [*fonts, *figure_dirs]


def write_pdf(
    html: str, base_dir: Path, output: Path, language: str | None = None
) -> None:
    """Render the standalone report HTML into a printable A4 PDF.

    Headings, paragraphs, lists, block quotes, tables and code blocks keep their
    structure; PNG figures are read relative to ``base_dir``, as a browser reads
    them next to ``report.html``. The PDF is written through a temporary file
    beside ``output``, so a failed render leaves no partial PDF behind.

    Args:
        html: The page :func:`nsightflow.report.html.to_html` returns.
        base_dir: Folder the page's relative image sources resolve against,
            normally the folder ``report.html`` is written to.
        output: Path of the PDF to write; its folder is created if needed.
        language: ``en`` or ``zh``; None reads it from the page's ``<html
            lang>``. A Chinese PDF embeds a CJK TrueType font and fails
            without one (see :mod:`nsightflow.report.pdf.fonts`).

    Raises:
        StageInputError: A figure is missing, remote or unreadable, a Chinese
            page has no CJK font to embed, or the page cannot be rendered.
        ValueError: The language is not one the catalogue has.
    """
    lang = i18n.parse_language(language) if language else page_language(html)
    base_dir = Path(base_dir).resolve()
    page, roots = _prepare(html, base_dir, lang)
    output.parent.mkdir(parents=True, exist_ok=True)
    partial = output.with_name(f".{output.name}.partial")
    try:
        _render(page, base_dir, roots, partial)
        partial.replace(output)
    except StageInputError as exc:
        partial.unlink(missing_ok=True)
        raise StageInputError(f"{exc} while rendering {output}") from exc
    except Exception as exc:
        partial.unlink(missing_ok=True)
        raise StageInputError(
            f"PDF report: cannot render {output} from the report HTML "
            f"({type(exc).__name__}: {exc})"
        ) from exc


def _render(page: str, base_dir: Path, roots: list[Path], sink_path: Path) -> None:
    """Lay the prepared page out into ``sink_path`` with xhtml2pdf.

    Raises:
        StageInputError: xhtml2pdf reported errors.
    """
    from xhtml2pdf import pisa
    from xhtml2pdf.config.resources import ResourceAccessPolicy

    policy = ResourceAccessPolicy(
        allow_remote=False,
        base_dir=base_dir,
        extra_roots=tuple(roots),
        max_render_seconds=RENDER_LIMIT_S,
    )
    with sink_path.open("wb") as sink, _quiet("xhtml2pdf"):
        status = pisa.CreatePDF(
            page,
            dest=sink,
            path=str(base_dir / "report.html"),
            encoding="utf-8",
            resource_policy=policy,
        )
    if status.err:
        raise StageInputError(f"PDF report: xhtml2pdf reported {status.err} error(s)")
    number_contents(sink_path, _dejavu_dir())
