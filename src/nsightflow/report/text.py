"""Untrusted text in the report: data, never markup.

A family's manifest (title, description, each variant's idea), its kernel sources and
the stages' messages are written by whoever owns the folder, not by nsightflow. Before
any of it reaches ``report.md`` (and from there ``report.html`` and ``report.pdf``) it
goes through one of these functions:

* :func:`inline` for manifest text: Markdown is honoured, through an allow-list. The
  text is rendered with Python-Markdown (raw HTML off), cleaned with ``nh3`` (the
  Ammonia sanitizer: only ``em``, ``strong``, ``code`` and ``a`` survive, links only
  to ``http``/``https``; an image becomes its alt text; raw HTML and every other tag
  are dropped, their text kept), and written back as Markdown in which every remaining character that could
  start markup is escaped. What comes out can only render as text, emphasis, code
  spans and web links, in a heading, a table cell or a paragraph alike.
* :func:`plain` for tool output and messages: every character is literal.
* :func:`code_block` for sources and tool output shown as code: a fence longer than
  any run of backticks inside, so the text cannot close it.

The PDF shows a link as its text followed by the address (:func:`links_as_text`):
paper has no clickable links, and the reader sees where one would go.
"""

import re
import urllib.parse
from html.parser import HTMLParser

import markdown
import nh3

from nsightflow.i18n.markup import code_span

# HTML tags (contracts: literal); img: its alt text only
ALLOWED_TAGS = {"p", "em", "strong", "code", "a", "img"}  # contracts: literal
LINK_SCHEMES = {"http", "https"}
# Characters that can start Markdown (Python-Markdown with the tables extension)
# anywhere in a line (``#``: closing hashes of a heading), and the HTML-special ones,
# written so that they read as themselves. ``!`` needs nothing: ``[`` is escaped.
_ESCAPES = {
    **{c: "\\" + c for c in "\\`*[]|#"},
    "&": "&amp;",
    "<": "&lt;",
}
_ESCAPE = re.compile("|".join(re.escape(c) for c in _ESCAPES) + "|_+")
# What starts a block at the beginning of a line: a list item (its marker and a
# space: "- x", "1. x", not "-1.5" or "580.159.04"), a quote, a line of ``-`` or
# ``=`` (a rule, or the underline that makes the line above a heading; ``\=`` is no
# escape in Python-Markdown, so the character's reference is written instead).
_BULLET = re.compile(r"^(\s*)([+\-](?=\s|$)|>|-(?=[-\s]*$))")
_SETEXT = re.compile(r"^(\s*)=(?=[=\s]*$)")
_NUMBERED = re.compile(r"^(\s*)(\d+)([.)])(?=\s|$)")
_URL_SAFE = ":/?#@!$&*+,;=%-._~"  # kept as is in a link address; the rest is %-encoded


def plain(text: object) -> str:
    """``text`` on one line, every character literal in Markdown (and so in HTML)."""
    return _line(_escape(" ".join(str(text).split())))


def inline(text: object, paragraphs: bool = False) -> str:
    """Manifest text as safe Markdown: inline formatting and web links only.

    Args:
        text: The manifest's title, description or idea.
        paragraphs: Keep paragraph breaks (a description); otherwise one line (a
            heading or a table cell).

    Returns:
        Markdown that renders as the text with at most emphasis, code spans and
        ``http(s)`` links: no image, no raw HTML, no other link, no block structure.
    """
    md = markdown.Markdown()
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    html = md.convert(str(text))
    clean = nh3.clean(
        html,
        tags=ALLOWED_TAGS,
        attributes={"a": {"href"}, "img": {"alt"}},  # contracts: literal
        url_schemes=LINK_SCHEMES,
        link_rel=None,
    )
    writer = _MarkdownWriter()
    writer.feed(clean)
    writer.close()
    parts = [p for p in writer.paragraphs() if p]
    return ("\n\n" if paragraphs else " ").join(parts)


def code_block(text: str, language: str = "") -> str:
    """A fenced code block that no content can close early.

    The fence is one backtick longer than the longest run of backticks in ``text``
    (at least three), so a source that holds a fence of its own stays inside.
    """
    runs = [len(m) for m in re.findall(r"`+", text)]
    fence = "`" * max(3, max(runs, default=0) + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def links_as_text(html: str) -> str:
    """The page with every ``<a href>`` replaced by its text and its address.

    For the PDF: ``<a href="https://x">docs</a>`` becomes ``docs (https://x)``.
    """
    return _ANCHOR.sub(_anchor_text, html)


_ANCHOR = re.compile(r"<a\b([^>]*)>(.*?)</a\s*>", re.I | re.S)
_HREF = re.compile(r"""\shref\s*=\s*(?:"([^"]*)"|'([^']*)')""", re.I)
_TAGS = re.compile(r"<[^>]*>")


def _anchor_text(match: re.Match[str]) -> str:
    label = match.group(2)
    found = _HREF.search(match.group(1))
    href = next((g for g in found.groups() if g is not None), "") if found else ""
    if not href or href.startswith("#"):
        return label
    words = _TAGS.sub("", label).strip()
    return label if words == href else f"{label} ({href})"


def _escape(text: str) -> str:
    return _ESCAPE.sub(lambda m: _escaped(m, text), text)


def _escaped(match: re.Match[str], text: str) -> str:
    """One markup character written to read as itself.

    A run of underscores between two letters or digits (``v0_naive``,
    ``min_reps``) stays as it is: neither Python-Markdown nor CommonMark
    (GitHub) opens or closes emphasis inside a word, so names and paths read
    unchanged in ``report.md``. Any other run is escaped.
    """
    found = match.group(0)
    if not found.startswith("_"):
        return _ESCAPES[found]
    start, end = match.span()
    inside = (
        0 < start
        and end < len(text)
        and text[start - 1].isalnum()
        and text[end].isalnum()
    )
    return found if inside else "\\_" * len(found)


def _line(text: str) -> str:
    """A line that cannot start a list, a quote or a heading's underline."""
    text = _SETEXT.sub(r"\1&#61;", text)
    return _NUMBERED.sub(r"\1\2\\\3", _BULLET.sub(r"\1\\\2", text))


class _MarkdownWriter(HTMLParser):
    """Sanitized HTML (tags of ALLOWED_TAGS only) back to escaped Markdown."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self._done: list[str] = []
        self._out: list[str] = []
        self._code: list[str] | None = None
        self._links: list[tuple[str, list[str]]] = []

    def paragraphs(self) -> list[str]:
        """The paragraphs written so far, each on one line."""
        self._break()
        return self._done

    def _emit(self, text: str) -> None:
        target = self._links[-1][1] if self._links else self._out
        target.append(text)

    def _break(self) -> None:
        line = " ".join("".join(self._out).split())
        if line:
            self._done.append(_line(line))
        self._out = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "p":
            self._break()
        elif tag in ("em", "strong"):
            self._emit("*" if tag == "em" else "**")
        elif tag == "code":
            self._code = []
        elif tag == "a":
            self._links.append((dict(attrs).get("href") or "", []))
        elif tag == "img":
            self._emit(_escape(dict(attrs).get("alt") or ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "p":
            self._break()
        elif tag in ("em", "strong"):
            self._emit("*" if tag == "em" else "**")
        elif tag == "code" and self._code is not None:
            code = " ".join("".join(self._code).split())
            self._code = None
            if code:
                self._emit(code_span(code))
        elif tag == "a" and self._links:
            href, label = self._links.pop()
            text = "".join(label).strip()
            if href:
                address = urllib.parse.quote(href, safe=_URL_SAFE)
                self._emit(f"[{text or _escape(href)}]({address})")
            else:
                self._emit(text)

    def handle_data(self, data: str) -> None:
        if self._code is not None:
            self._code.append(data)
        else:
            self._emit(_escape(data))
