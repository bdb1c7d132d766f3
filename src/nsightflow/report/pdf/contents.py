"""The contents' page numbers, written onto the PDF after its one layout pass.

The contents are the page's own links (:mod:`nsightflow.report.pdf.paper`), so the
document is laid out once; where each entry leads is then in the PDF itself: every
entry is a link annotation whose destination is its heading's page. Each entry
gets that page's number flush right on its last line, drawn on an overlay of the
contents' pages (ReportLab) merged into them (pypdf). xhtml2pdf's own ``<pdf:toc />``
would lay the whole document out three times to settle the same numbers.
"""

import io
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.report.pdf.tables import MARGIN_MM, MM

NUMBER_PT = 9.0  # the contents' text size (the body's)
# from the bottom of an entry's line box (its link's rectangle) to its baseline: an
# eighth of the text size in xhtml2pdf's boxes (measured with pdftotext -bbox: the
# number's glyph box then matches its entry's to 0.01 pt)
BASELINE_FROM_BOTTOM = NUMBER_PT / 8
FONT_NAME = "nsf-contents-sans"


@dataclass(frozen=True)
class Entry:
    """One contents entry: the page it is printed on, its last line, its target."""

    page: int  # from 0
    bottom: float  # of its last line's box, in points from the page's foot
    target: int  # the page (from 0) its heading starts on


def number_contents(pdf: Path, font_dir: Path | None) -> int:
    """Write each contents entry's page number into ``pdf`` (in place).

    Args:
        pdf: The rendered report.
        font_dir: Folder of the DejaVu fonts the report embeds (None: Helvetica).

    Returns:
        How many entries were numbered.
    """
    from pypdf import PdfReader, PdfWriter

    reader = PdfReader(pdf)
    entries = list(_entries(reader))
    if not entries:
        return 0
    writer = PdfWriter(clone_from=reader)
    box = reader.pages[0].mediabox
    overlays = _overlays(entries, (float(box.width), float(box.height)), font_dir)
    for page, overlay in overlays.items():
        writer.pages[page].merge_page(PdfReader(io.BytesIO(overlay)).pages[0])
    with pdf.open("wb") as sink:
        writer.write(sink)
    return len(entries)


def _entries(reader: Any) -> Iterator[Entry]:
    """Every internal link of the document, one per entry (its lowest line)."""
    index = {page.indirect_reference.idnum: i for i, page in enumerate(reader.pages)}
    last: tuple[int, int, float] | None = None  # the previous link's page and target
    pending: Entry | None = None
    for number, page in enumerate(reader.pages):
        for ref in page.get("/Annots") or []:
            link = ref.get_object()
            dest = link.get("/Dest")
            if link.get("/Subtype") != "/Link" or not dest:
                continue
            target = index.get(dest[0].idnum)
            if target is None:
                continue
            bottom = float(min(link["/Rect"][1], link["/Rect"][3]))
            key = (number, target, float(dest[3] or 0) if len(dest) > 3 else 0.0)
            if last == key and pending is not None:
                # the same entry's next line (an entry that wraps): numbered on it
                pending = Entry(number, min(bottom, pending.bottom), target)
                continue
            if pending is not None:
                yield pending
            pending, last = Entry(number, bottom, target), key
    if pending is not None:
        yield pending


def _overlays(
    entries: list[Entry], size: tuple[float, float], font_dir: Path | None
) -> dict[int, bytes]:
    """Per page with entries, a one-page PDF holding their numbers."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont
    from reportlab.pdfgen.canvas import Canvas

    font = "Helvetica"
    if font_dir is not None:
        if FONT_NAME not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(TTFont(FONT_NAME, str(font_dir / "DejaVuSans.ttf")))
        font = FONT_NAME
    right = size[0] - MARGIN_MM * MM
    pages: dict[int, list[Entry]] = {}
    for entry in entries:
        pages.setdefault(entry.page, []).append(entry)
    overlays = {}
    for page, on_page in pages.items():
        buffer = io.BytesIO()
        canvas = Canvas(buffer, pagesize=size, pageCompression=1)
        canvas.setFont(font, NUMBER_PT)
        canvas.setFillColorRGB(0x22 / 255, 0x22 / 255, 0x22 / 255)
        for entry in on_page:
            y = entry.bottom + BASELINE_FROM_BOTTOM
            canvas.drawRightString(right, y, str(entry.target + 1))
        canvas.showPage()
        canvas.save()
        overlays[page] = buffer.getvalue()
    return overlays
