"""The report page made ready for paper: contents with page numbers, parts unfolded.

On screen the contents are a list of links and the appendix's parts fold away
(:mod:`nsightflow.report.folds`). On paper a link cannot be followed and nothing
folds, so the contents become xhtml2pdf's ``<pdf:toc />`` (every ``h2`` and ``h3``
with the page it starts on, filled in by a second layout pass), and each
``<details>`` prints open, its summary as the heading it holds.
"""

import re

from nsightflow.i18n import T

_NAV = re.compile(r"<nav\b[^>]*class=\"toc\"[^>]*>.*?</nav\s*>", re.I | re.S)
_FOLD = re.compile(r"<(/?)(details|summary)\b[^>]*>", re.I)

# Only h2 and h3 go into the contents (and the PDF's outline): the title is on top
# of page 1 already, and the h4 of a part would make the list longer than a page.
TOC_STYLE = """
h1, h4, h5, h6 { -pdf-outline: false; }
.pdf-contents { padding-top: 6pt; }
.pdf-contents .toc-title { font-size: 11pt; font-weight: bold; padding-bottom: 2pt; }
pdftoc { color: #222222; font-style: normal; }
pdftoc.pdftoclevel0 { font-weight: bold; font-style: normal; margin-top: 2pt; }
pdftoc.pdftoclevel1 { font-weight: normal; font-style: normal; margin-left: 12pt; }
"""


def paper_page(html: str) -> str:
    """``html`` with the contents as ``<pdf:toc />`` and every fold open."""
    contents = (
        '<div class="pdf-contents">'
        f'<p class="toc-title">{T("page_contents")}</p><pdf:toc /></div>'
    )
    html = _NAV.sub(lambda _: contents, html, count=1)
    return _FOLD.sub(lambda m: f"<{m.group(1)}div>", html)
