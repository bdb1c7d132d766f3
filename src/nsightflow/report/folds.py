"""What the HTML page folds away: the appendix's parts, and metric names under hover.

A family report's appendix (the ``h2`` with id :data:`APPENDIX_ID`) is long: every
table and finding behind the body. On the page each of its parts (an ``h3`` and what
follows it) becomes a ``<details>`` element, closed, whose summary is the part's
heading. The part's id moves from the heading to the part's content, so a link to it
(from the contents, or from a step of the body) opens the part: Chromium, Firefox and
Safari open a closed ``<details>`` when a followed link targets an element inside it.

The body marks a metric's number with a footnote (``[^m1]``, Python-Markdown's
``footnotes`` extension); the mark's link gets the metric's name as its ``title``, so
it shows on hover, and the footnotes themselves sit in the appendix's last part.
"""

import re
import xml.etree.ElementTree as ET
from copy import deepcopy

APPENDIX_ID = "appendix"
GLOSSARY_ID = "glossary"  # the appendix part the footnotes belong to
FOOTNOTE_REF = "footnote-ref"  # class of a footnote mark's link (Python-Markdown)
_PLACEHOLDER = re.compile("\x02[^\x03]*\x03")  # Python-Markdown's stashed markup


def _text(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


def _note_text(li: ET.Element) -> str:
    """A footnote's text without its link back to the mark."""
    note = deepcopy(li)
    for parent in list(note.iter()):
        for a in list(parent):
            if a.tag == "a" and "footnote-backref" in (a.get("class") or ""):
                tail = a.tail or ""
                parent.remove(a)
                parent.text = (parent.text or "") + tail
    # the footnotes extension holds the space before the link as a placeholder
    return " ".join(_PLACEHOLDER.sub(" ", _text(note)).split())


def fold_appendix(root: ET.Element) -> None:
    """Turn each ``h3`` part after the appendix heading into a closed ``<details>``."""
    _footnotes_to_glossary(root)
    children = list(root)
    start = next(
        (
            i
            for i, c in enumerate(children)
            if c.tag == "h2" and c.get("id") == APPENDIX_ID
        ),
        None,
    )
    if start is None:
        return
    part: ET.Element | None = None
    for child in children[start + 1 :]:
        if child.tag == "h2":
            break
        if child.tag == "h3":
            part = _open_part(root, child)
            continue
        if part is not None:
            root.remove(child)
            part.append(child)


def _open_part(root: ET.Element, heading: ET.Element) -> ET.Element:
    """Replace ``heading`` by a ``<details>`` holding it; return the part's body."""
    index = list(root).index(heading)
    root.remove(heading)
    details = ET.Element("details", {"class": "part"})
    summary = ET.SubElement(details, "summary")
    ident = heading.attrib.pop("id", "")
    summary.append(heading)
    body = ET.SubElement(details, "div", {"class": "part-body"})
    if ident:
        body.set("id", ident)
    root.insert(index, details)
    return body


def footnote_titles(root: ET.Element) -> None:
    """Give each footnote mark the footnote's text (the metric) as its hover title."""
    notes: dict[str, str] = {}
    for li in root.iter("li"):
        ident = li.get("id", "")
        if ident.startswith("fn:"):
            notes[ident] = _note_text(li)
    for a in root.iter("a"):
        if FOOTNOTE_REF in (a.get("class") or "").split():
            target = (a.get("href") or "").lstrip("#")
            if target in notes:
                a.set("title", notes[target])


def _footnotes_to_glossary(root: ET.Element) -> None:
    """Move the footnotes (written at the page's end) under the glossary's heading."""
    notes = next(
        (c for c in root if c.tag == "div" and c.get("class") == "footnote"), None
    )
    heading = next(
        (c for c in root if c.tag == "h3" and c.get("id") == GLOSSARY_ID), None
    )
    if notes is None or heading is None:
        return
    root.remove(notes)
    children = list(root)
    at = children.index(heading) + 1
    while at < len(children) and children[at].tag not in ("h2", "h3"):
        at += 1
    root.insert(at, notes)
