"""The report page made ready for paper: contents as links, parts unfolded.

On screen the contents are a list of links and the appendix's parts fold away
(:mod:`nsightflow.report.folds`). On paper nothing folds: each ``<details>``
prints open, its summary as the heading it holds. The contents stay the page's
own list of links, which a PDF viewer follows: the body's sections and steps at
the front, the appendix's parts in a list of their own at the appendix's start
(so the front list stays short and the brief's page full). Every other link
prints as its text and its address. The headings (h2, h3) are also the PDF's
outline.

The contents name no page numbers: xhtml2pdf's ``<pdf:toc />`` fills them in by
laying the whole document out three times (the numbers settle on the third
pass), 67% of a report's PDF time; a document with no table of contents is laid
out once.
"""

import re
import xml.etree.ElementTree as ET

from nsightflow.report.text import links_as_text

_NAV = re.compile(r"<nav\b[^>]*class=\"toc\"[^>]*>.*?</nav\s*>", re.I | re.S)
_FOLD = re.compile(r"<(/?)(?:details|summary)\b", re.I)
# the appendix's heading and its introduction: its own contents list follows them
_APPENDIX = re.compile(r'<h2 id="appendix">.*?</h2>\s*(?:<p>.*?</p>)?', re.I | re.S)
APPENDIX_HREF = "#appendix"
# what stands in for the lists while the page's other links become text
_FRONT_MARK = "<!--nsf-contents-->"
_PARTS_MARK = "<!--nsf-parts-->"

# Only h2 and h3 go into the PDF's outline: the title is on top of page 1 already,
# and the h4 of a part would make it longer than a page. The entries are set in the
# report's sans (%(sans)s), like the text.
NUMBER_ROOM_PT = 24  # right of the entries: their page numbers (pdf.contents)
TOC_STYLE = """
h1, h4, h5, h6 { -pdf-outline: false; }
.pdf-contents { margin-top: 8pt; padding-top: 4pt; border-top: 0.5pt solid #bbbbbb; }
.pdf-contents ul { list-style-type: none; margin: 0 %(number_room)spt 0 0; padding: 0; }
.pdf-contents li { font-family: %(sans)s; padding-bottom: 0; }
.pdf-contents li.toc0 { font-weight: bold; margin-top: 2pt; }
.pdf-contents li.toc1 { font-weight: normal; margin-left: 12pt; }
.pdf-contents a { color: #222222; text-decoration: none; }
"""


def paper_page(html: str) -> str:
    """``html`` with the contents as link lists, every fold open, other links as text."""
    nav = _NAV.search(html)
    front, parts = _contents(nav.group(0)) if nav else ("", "")
    # no title: it could not be kept with the list, which left "Contents" alone at
    # the foot of page 1; a rule above the list sets it off from the brief
    html = _NAV.sub(lambda _: _FRONT_MARK, html, count=1)
    if parts and 'class="part"' in html:
        html = _APPENDIX.sub(lambda m: m.group(0) + _PARTS_MARK, html, count=1)
    html = links_as_text(_FOLD.sub(lambda m: f"<{m.group(1)}div", html))
    return html.replace(_FRONT_MARK, front, 1).replace(_PARTS_MARK, parts, 1)


def _contents(nav: str) -> tuple[str, str]:
    """The front list and the appendix's list of the screen page's ``<nav>``.

    The front list holds every section and step; the appendix's entry keeps its
    own line there, and its parts make the second list.
    """
    root = ET.fromstring(nav)
    top = root.find("ul")
    if top is None:
        return "", ""
    parts: ET.Element | None = None
    for item in top.findall("li"):
        link = item.find("a")
        nested = item.find("ul")
        if (
            link is not None
            and link.get("href") == APPENDIX_HREF
            and nested is not None
        ):
            item.remove(nested)
            parts = nested
    return _list(top, 0), _list(parts, 1) if parts is not None else ""


def _list(items: ET.Element, level: int) -> str:
    """One contents list: an entry per line, a nested list's entries indented."""
    rows: list[str] = []

    def walk(ul: ET.Element, depth: int) -> None:
        for item in ul.findall("li"):
            link = item.find("a")
            if link is None:
                continue
            link.tail = None
            entry = ET.tostring(link, encoding="unicode", short_empty_elements=False)
            rows.append(f'<li class="toc{min(depth, 1)}">{entry}</li>')
            nested = item.find("ul")
            if nested is not None:
                walk(nested, depth + 1)

    walk(items, level)
    if not rows:
        return ""
    return f'<div class="pdf-contents"><ul>{"".join(rows)}</ul></div>'
