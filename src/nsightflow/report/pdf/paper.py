"""The report page made ready for paper: contents with page numbers, parts unfolded.

On screen the contents are a list of links and the appendix's parts fold away
(:mod:`nsightflow.report.folds`). On paper a link cannot be followed and nothing
folds, so the contents become xhtml2pdf's ``<pdf:toc />``: the body's sections and
steps at the front, the appendix's parts in a list of their own at the appendix's
start (so the front list stays short and the brief's page full), each with the page
it starts on, filled in by a second layout pass. Each ``<details>`` prints open, its
summary as the heading it holds.
"""

import re

_NAV = re.compile(r"<nav\b[^>]*class=\"toc\"[^>]*>.*?</nav\s*>", re.I | re.S)
_FOLD = re.compile(r"<(/?)(?:details|summary)\b", re.I)
# the appendix's heading and its introduction: its own contents list follows them
_APPENDIX = re.compile(r'<h2 id="appendix">.*?</h2>\s*(?:<p>.*?</p>)?', re.I | re.S)

# Only h2 and h3 go into the contents (and the PDF's outline): the title is on top
# of page 1 already, and the h4 of a part would make the list longer than a page.
# The entries are set in the report's sans (%(sans)s): xhtml2pdf's default for them,
# Helvetica, has no Chinese glyphs.
TOC_STYLE = """
h1, h4, h5, h6 { -pdf-outline: false; }
.part h3 { -pdf-toc-name: appendix; }
.pdf-contents { margin-top: 8pt; padding-top: 4pt; border-top: 0.5pt solid #bbbbbb; }
pdftoc { color: #222222; font-style: normal; font-family: %(sans)s; }
pdftoc.pdftoclevel0 { font-weight: bold; font-style: normal; margin-top: 2pt; }
pdftoc.pdftoclevel1 { font-weight: normal; font-style: normal; margin-left: 12pt; }
"""


def paper_page(html: str) -> str:
    """``html`` with the contents as ``<pdf:toc />`` and every fold open."""
    # no title: xhtml2pdf cannot keep one with the list, which left "Contents" alone
    # at the foot of page 1; a rule above the list sets it off from the brief
    contents = '<div class="pdf-contents"><pdf:toc /></div>'
    html = _NAV.sub(lambda _: contents, html, count=1)
    parts = '<div class="pdf-contents"><pdf:toc name="appendix" /></div>'
    if 'class="part"' in html:
        html = _APPENDIX.sub(lambda m: m.group(0) + parts, html, count=1)
    return _FOLD.sub(lambda m: f"<{m.group(1)}div", html)
