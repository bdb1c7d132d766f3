"""PDF tables: column widths measured in the PDF's fonts, and wide tables split.

Tables span the text width with columns sized from their content, measured with
the fonts they are set in (:class:`nsightflow.report.pdf.fonts.Meter`); a code word
(a variant, kernel or metric name) keeps its whole width, so it never breaks inside,
while a long plain word (a path) breaks rather than run off the page. A table
too wide for the page at TABLE_FONT_PT (the 14-column summary) is split into
tables of column groups, each led by the first column, so no text is set below
MIN_FONT_PT.
"""

import math
import re
from html import unescape

from nsightflow.report.pdf.fonts import Meter as _Meter

MM = 72 / 25.4  # PDF points per millimetre
PAGE_WIDTH_MM = 210.0  # A4 portrait
MARGIN_MM = 15.0  # left and right
TEXT_WIDTH_PT = (PAGE_WIDTH_MM - 2 * MARGIN_MM) * MM
MIN_FONT_PT = 8.0  # no text of the PDF is smaller (tables, code, footer)
TABLE_FONT_PT = MIN_FONT_PT
MIN_TABLE_FONT_PT = MIN_FONT_PT  # a wide table is split into column groups instead
CODE_IN_TABLE = 1.0  # size of ``code`` in a table cell, relative to the cell
COMFORT_EM = 14.0  # a text column wider than this wraps; a split keeps it this wide
# A table whose comfortable widths pass the page by at most this factor stays whole
# (its longest cells wrap a little more): a brief's ladder is one table, not two.
SPLIT_SLACK = 1.1
CELL_PADDING_PT = 6.5  # left and right padding and rule of one table cell
MAX_UNBROKEN_EM = 9.0  # longer plain words in a table cell may break anywhere
CODE_MARGIN_EM = 0.5  # a code word's column is this much wider than the word

ATTR_VALUE = r"""\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)"""  # "= value" of an HTML attribute
_WIDTH_ATTR = re.compile(rf"\swidth{ATTR_VALUE}", re.I)
_STYLE_ATTR = re.compile(r"""\sstyle\s*=\s*["']""", re.I)
_SPAN_ATTR = re.compile(r"\s(?:colspan|rowspan)\s*=", re.I)
_TABLE = re.compile(r"<table\b([^>]*)>(.*?)</table\s*>", re.I | re.S)
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr\s*>", re.I | re.S)
_CELL = re.compile(r"<(t[hd])\b([^>]*)>(.*?)</t[hd]\s*>", re.I | re.S)
_CODE = re.compile(r"<code\b[^>]*>(.*?)</code\s*>", re.I | re.S)
_BOLD = re.compile(r"<(?:strong|b)\b[^>]*>(.*?)</(?:strong|b)\s*>", re.I | re.S)
_TAG = re.compile(r"<[^>]*>")


def _runs(cell_html: str, header: bool) -> list[tuple[str, str, float]]:
    """Plain-text runs of a table cell: (text, face, size relative to the cell)."""
    runs: list[tuple[str, str, float]] = []
    plain = "bold" if header else "regular"
    position = 0
    for code in _CODE.finditer(cell_html):
        runs.append((cell_html[position : code.start()], plain, 1.0))
        runs.append((code.group(1), "mono", CODE_IN_TABLE))
        position = code.end()
    runs.append((cell_html[position:], plain, 1.0))
    split: list[tuple[str, str, float]] = []
    for html_text, face, size in runs:
        if face == "regular":  # <strong> inside a body cell
            position = 0
            for bold in _BOLD.finditer(html_text):
                split.append((html_text[position : bold.start()], face, size))
                split.append((bold.group(1), "bold", size))
                position = bold.end()
            html_text = html_text[position:]
        split.append((html_text, face, size))
    return [
        (" ".join(unescape(_TAG.sub(" ", text)).split()), face, size)
        for text, face, size in split
        if text
    ]


def _demands(
    rows: list[list[tuple[str, str]]], meter: _Meter
) -> tuple[list[float], list[float]]:
    """Least and wanted width of each column of a table, in em of the table font.

    The least width is a column's widest word, capped at MAX_UNBROKEN_EM since
    longer words may break anywhere; the wanted width sets its widest cell on
    one line.

    Args:
        rows: (tag, inner HTML) of each cell, row by row, all rows equally long.
        meter: Measures text in the PDF's faces.

    Returns:
        The least and the wanted width of each column.
    """
    least = [0.0] * len(rows[0])
    wanted = [0.0] * len(rows[0])
    for row in rows:
        for col, (tag, cell_html) in enumerate(row):
            runs = _runs(cell_html, header=tag.lower() == "th")
            space = meter.em(" ", "regular")
            line = sum(meter.em(text, face) * size for text, face, size in runs)
            line += space * max(0, len(runs) - 1)
            words = [
                _least_em(word, face, size, meter)
                for text, face, size in runs
                for word in text.split()
            ]
            least[col] = max(least[col], max(words, default=0.0))
            wanted[col] = max(wanted[col], line)
    return least, wanted


def _least_em(word: str, face: str, size: float, meter: _Meter) -> float:
    """The width a word needs: a code identifier whole, other words up to a cap.

    An identifier (a variant, a kernel, a metric) split over two lines reads as two
    names (``v2_tiled_transpo`` / ``sed``), so a code word keeps its whole width
    plus a margin for the renderer's rounding; a long plain word (a path) may break
    past MAX_UNBROKEN_EM.
    """
    width = meter.em(word, face) * size
    if face == "mono":
        return width + CODE_MARGIN_EM
    return min(MAX_UNBROKEN_EM, width)


def table_layout(
    rows: list[list[tuple[str, str]]], meter: _Meter
) -> tuple[float, list[float]]:
    """Font size and column widths of a full-width table, as a browser sets them.

    Every column gets its least width, and what is left of the text width is
    shared in proportion to how much more each column wants. If the least widths
    do not fit side by side at TABLE_FONT_PT, the font shrinks until they do,
    down to MIN_TABLE_FONT_PT; below that, words break to fit.

    Args:
        rows: (tag, inner HTML) of each cell, row by row, all rows equally long.
        meter: Measures text in the PDF's faces.

    Returns:
        The font size in points and one width per column in points; the widths
        add up to the text width.
    """
    least_em, wanted_em = _demands(rows, meter)
    space = TEXT_WIDTH_PT - CELL_PADDING_PT * len(least_em)
    font_pt = TABLE_FONT_PT
    if sum(least_em) * font_pt > space:
        fitting = math.floor(20 * space / sum(least_em)) / 20
        font_pt = max(MIN_TABLE_FONT_PT, fitting)
    least = [em * font_pt for em in least_em]
    wanted = [em * font_pt for em in wanted_em]
    if sum(least) >= space:
        widths = least
    elif sum(wanted) <= space:
        widths = wanted
    else:
        share = (space - sum(least)) / (sum(wanted) - sum(least))
        widths = [m + (w - m) * share for w, m in zip(wanted, least, strict=True)]
    scale = max(space, 1.0) / max(sum(widths), 1e-9)
    return font_pt, [w * scale + CELL_PADDING_PT for w in widths]


def _with_style(attrs: str, declaration: str) -> str:
    """A tag's attributes with a CSS declaration put first in its style."""
    match = _STYLE_ATTR.search(attrs)
    if match is None:
        return f'{attrs} style="{declaration}"'
    return f"{attrs[: match.end()]}{declaration}; {attrs[match.end() :]}"


def size_tables(html: str, meter: _Meter) -> str:
    """Give every simple table column widths on its first row and a font that fits.

    Tables with spanning cells, ragged rows or a nested table are left to
    xhtml2pdf, which shares the width equally between their columns.
    """

    def size(match: re.Match[str]) -> str:
        attrs, inner = match.group(1), match.group(2)
        rows = [
            [(tag, content) for tag, _, content in _CELL.findall(row)]
            for row in _ROW.findall(inner)
        ]
        rows = [row for row in rows if row]
        if (
            not rows
            or "<table" in inner.lower()
            or any(len(row) != len(rows[0]) for row in rows)
            or _SPAN_ATTR.search(inner)
        ):
            return match.group(0)
        font_pt, widths = table_layout(rows, meter)
        percents = iter(100 * width / sum(widths) for width in widths)

        def with_width(cell: re.Match[str]) -> str:
            tag, cell_attrs, content = cell.groups()
            cell_attrs = _WIDTH_ATTR.sub("", cell_attrs)
            return f'<{tag}{cell_attrs} width="{next(percents):.2f}%">{content}</{tag}>'

        first_row = _ROW.search(inner)
        assert first_row is not None  # rows is not empty
        inner = (
            inner[: first_row.start()]
            + _CELL.sub(with_width, first_row.group(0))
            + inner[first_row.end() :]
        )
        if font_pt != TABLE_FONT_PT:
            attrs = _with_style(attrs, f"font-size: {font_pt:g}pt")
        return f"<table{attrs}>{inner}</table>"

    return _TABLE.sub(size, html)


def column_groups(rows: list[list[tuple[str, str]]], meter: _Meter) -> list[list[int]]:
    """Columns of a table in groups that each fit the text width at TABLE_FONT_PT.

    A column asks for its widest cell on one line, but no more than COMFORT_EM
    (longer text wraps) and no less than its widest word. Groups are filled in
    column order and each repeats the first column, which names the row; a table
    that fits is one group.

    Args:
        rows: (tag, inner HTML) of each cell, row by row, all rows equally long.
        meter: Measures text in the PDF's faces.

    Returns:
        Column indices of each group.
    """
    least, wanted = _demands(rows, meter)
    comfort = [
        max(lo, min(w, COMFORT_EM)) * TABLE_FONT_PT + CELL_PADDING_PT
        for lo, w in zip(least, wanted, strict=True)
    ]
    if sum(comfort) <= SPLIT_SLACK * TEXT_WIDTH_PT or len(comfort) < 3:
        return [list(range(len(comfort)))]
    greedy = _fill_groups(comfort, TEXT_WIDTH_PT)
    # As many groups as the greedy fill needs, but of even width: no last table of
    # one lonely column.
    target = (sum(comfort) - comfort[0]) / len(greedy) + comfort[0]
    even: list[list[int]] = [[0]]
    for col in range(1, len(comfort)):
        if sum(comfort[c] for c in even[-1]) >= target and len(even) < len(greedy):
            even.append([0])
        even[-1].append(col)
    fits = all(sum(comfort[c] for c in g) <= TEXT_WIDTH_PT for g in even)
    return even if fits and len(even) == len(greedy) else greedy


def _fill_groups(comfort: list[float], limit: float) -> list[list[int]]:
    """Columns in order, a new group (led by column 0) when one would pass ``limit``."""
    groups: list[list[int]] = []
    current = [0]
    for col in range(1, len(comfort)):
        if len(current) > 1 and sum(comfort[c] for c in [*current, col]) > limit:
            groups.append(current)
            current = [0]
        current.append(col)
    return [*groups, current]


def split_wide_tables(html: str, meter: _Meter) -> str:
    """Split a simple table too wide for the page into tables of column groups.

    The 14-column summary would otherwise be set below MIN_FONT_PT or in columns
    a word wide; split, each part keeps the first column and fits at
    TABLE_FONT_PT. Tables with spanning cells or ragged rows are left as they are.
    """

    def split(match: re.Match[str]) -> str:
        attrs, inner = match.group(1), match.group(2)
        row_html = _ROW.findall(inner)
        rows = [[(t, c) for t, _, c in _CELL.findall(r)] for r in row_html]
        if (
            not rows
            or not rows[0]
            or "<table" in inner.lower()
            or any(len(row) != len(rows[0]) for row in rows)
            or _SPAN_ATTR.search(inner)
        ):
            return match.group(0)
        groups = column_groups(rows, meter)
        if len(groups) == 1:
            return match.group(0)
        cells = [_CELL.findall(r) for r in row_html]
        parts = []
        for group in groups:
            body = "".join(
                "<tr>"
                + "".join(
                    f"<{row[c][0]}{row[c][1]}>{row[c][2]}</{row[c][0]}>" for c in group
                )
                + "</tr>\n"
                for row in cells
            )
            parts.append(f"<table{attrs}>\n{body}</table>")
        return "\n".join(parts)

    return _TABLE.sub(split, html)
