"""HTML pages: ``report.html`` of a family and the ``index.html`` over all families.

:func:`to_html` turns the report's Markdown into one self-contained page: no raw HTML
from the Markdown is passed through (every user-supplied string arrives escaped), the
figures are embedded (an SVG beside a PNG inline, so that its points' ``<title>``
tooltips work without a script; else the PNG as a data URI), and nothing is fetched
from the network (system fonts, no scripts). On top of the converted Markdown it adds:

* ids on the headings that stay the same across runs and languages: a heading written
  from a catalogue template gets the template's key (``h_summary`` -> ``summary``), with
  the variant when the template names one (``step-v1_smem``); other headings a slug of
  their text;
* a table of contents of the sections and their subsections (the steps);
* tables in a box of their own that scrolls sideways, long cells (a variant's idea) on
  one line with the whole text on hover or focus;
* links from a table's first-column variant to that variant's section (its step, or
  the baseline's section).

:mod:`nsightflow.report.embed` embeds the figures; :mod:`nsightflow.report.index`
writes the index page with the same style.
"""

import copy
import html
import json
import re
import string
import xml.etree.ElementTree as ET
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from markdown import Markdown
from markdown.extensions import Extension
from markdown.treeprocessors import Treeprocessor

from nsightflow.contracts import columns as col
from nsightflow.i18n import (
    CATALOGUE,
    DEFAULT_LANGUAGE,
    HTML_LANG,
    Language,
    T,
    language,
    parse_language,
)
from nsightflow.report.embed import data_uri, figure, own_file, slug
from nsightflow.report.folds import fold_appendix, footnote_titles
from nsightflow.report.paths import report_stem

LONG_CELL = 60  # characters: a longer table cell is set on one line, whole on hover
VARIANT_FIELD = col.VARIANT  # a heading template naming a variant is that variant's
BRIEF_ID = "brief"  # a family report's first section; the contents follow it


@cache
def style() -> str:
    """The page's stylesheet (``page.css`` beside this module)."""
    return resources.files("nsightflow.report").joinpath("page.css").read_text()


def page(body: str, title: str, lang: Language) -> str:
    """A standalone page around ``body``; an English page has no ``lang``, as before."""
    html_tag = (
        "<html>" if lang == DEFAULT_LANGUAGE else f'<html lang="{HTML_LANG[lang]}">'
    )
    return (
        f"<!doctype html>\n{html_tag}<head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{html.escape(title)}</title>"
        f"<style>{style()}</style></head><body><main>\n{body}\n</main></body></html>\n"
    )


def to_html(
    markdown_text: str,
    title: str,
    base_dir: Path | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> str:
    """Standalone HTML of a Markdown report.

    Raw HTML in the Markdown is not passed through: every user-supplied string (variant
    names, ideas, compiler messages) arrives escaped. With ``base_dir``, figures are
    embedded so the page is one self-contained file.

    Args:
        markdown_text: The report.
        title: The page title.
        base_dir: Folder the figures' relative paths resolve against; None leaves
            them as links.
        language: Language of the text. A page in any language but English says
            so in ``<html lang>``, which browsers (and :mod:`nsightflow.report.pdf.build`)
            read to pick fonts; an English page is written as before, without it.

    Raises:
        StageInputError: An SVG figure is not one the plot stage wrote (it holds a
            script, an event handler or a link out of the page).
        ValueError: The language is not one the catalogue has.
    """
    lang = parse_language(language)
    return page(render(markdown_text, base_dir, lang).body, title, lang)


@dataclass
class Rendered:
    """The body of a page and what the index needs to know of it."""

    body: str
    sections: list[tuple[str, str]] = field(default_factory=list)  # (id, text) of h2
    figures: list[str] = field(default_factory=list)  # figure sources, in order


def render(
    markdown_text: str,
    base_dir: Path | None,
    lang: Language,
    roots: tuple[Path, ...] = (),
) -> Rendered:
    """The page body of a Markdown report, its sections and its figures.

    Figures are embedded from ``base_dir`` and ``roots`` only
    (:func:`nsightflow.report.embed.own_file`).

    Raises:
        StageInputError: An SVG figure holds a script, an event handler or a link
            out of the page (see :func:`nsightflow.report.embed.inline_svg`).
    """
    found = Rendered("")
    md = Markdown(
        extensions=[
            *("tables", "fenced_code", "footnotes"),
            _Page(base_dir, lang, found, roots),
        ],
        extension_configs={"footnotes": {"BACKLINK_TITLE": T("page_back_to_text")}},
    )
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    with language(lang):
        found.body = md.convert(markdown_text)
    return found


@cache
def _heading_patterns(lang: Language) -> list[tuple[str, re.Pattern[str]]]:
    """(id stem, regex) of every heading template of the catalogue, in ``lang``."""
    patterns = []
    for key, entry in CATALOGUE.items():
        if not key.startswith("h_"):
            continue
        regex, seen = "", set()
        for literal, name, _, _ in string.Formatter().parse(entry[lang]):
            regex += re.escape(literal.replace("`", "").replace("**", ""))
            if name:
                regex += f"(?P={name})" if name in seen else f"(?P<{name}>.+?)"
                seen.add(name)
        patterns.append((key[2:].replace("_", "-"), re.compile(regex)))
    return patterns


def _text(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())


class _Page(Extension):
    """Heading ids, contents, table boxes, variant links and figures (see module)."""

    def __init__(
        self,
        base_dir: Path | None,
        lang: Language,
        found: Rendered,
        roots: tuple[Path, ...],
    ) -> None:
        super().__init__()
        self.base_dir = base_dir
        self.roots = roots
        self.lang = lang
        self.found = found

    def extendMarkdown(self, md: Markdown) -> None:
        # after "unescape" (priority 0): the tree holds the text as it will be shown
        md.treeprocessors.register(_PageTree(md, self), "nsf_page", -10)


class _PageTree(Treeprocessor):
    def __init__(self, md: Markdown, ext: _Page) -> None:
        super().__init__(md)
        self.ext = ext

    def run(self, root: ET.Element) -> None:
        variants = self._heading_ids(root)
        self._tables(root, variants)
        self._figures(root)
        self._contents(root)
        footnote_titles(root)
        fold_appendix(root)

    def _heading_ids(self, root: ET.Element) -> dict[str, str]:
        """Give every heading a stable id; the variant -> section id it names."""
        used: set[str] = set()
        ranked: dict[str, tuple[int, str]] = {}
        for h in root:
            if h.tag not in ("h1", "h2", "h3", "h4"):
                continue
            text = _text(h)
            stem, variant = slug(text), None
            for key, pattern in _heading_patterns(self.ext.lang):
                match = pattern.fullmatch(text)
                if match:
                    variant = match.groupdict().get(VARIANT_FIELD)
                    stem = f"{key}-{slug(variant)}" if variant else key
                    break
            ident, k = stem, 1
            while ident in used:
                k += 1
                ident = f"{stem}-{k}"
            used.add(ident)
            h.set("id", ident)
            if variant:  # a variant's own section: its step, else the baseline's
                rank = (
                    0 if ident.startswith("step-") else 1 if "baseline" in ident else 2
                )
                if variant not in ranked or rank < ranked[variant][0]:
                    ranked[variant] = (rank, ident)
        return {variant: ident for variant, (_, ident) in ranked.items()}

    def _tables(self, root: ET.Element, variants: dict[str, str]) -> None:
        """Box every table; clamp long cells; link first-column variants."""
        section = ""
        for i, child in enumerate(list(root)):
            if child.tag in ("h2", "h3"):
                section = child.get("id", "")
            if child.tag != "table":
                continue
            for td in child.iter("td"):
                # a pipe in a cell's code span is escaped for GitHub's Markdown
                # (``\\|``); Python-Markdown splits the cells right but keeps the
                # backslash in the code
                for code in td.iter("code"):
                    code.text = (code.text or "").replace("\\|", "|")
                if len(_text(td)) > LONG_CELL:
                    _clamp(td)
            for row in child.iter("tr"):
                cells = list(row)
                if cells and cells[0].tag == "td":
                    _link_variant(cells[0], variants, section)
            box = ET.Element("div", {"class": "table-wrap", "tabindex": "0"})
            root.remove(child)
            box.append(child)
            root.insert(i, box)

    def _figures(self, root: ET.Element) -> None:
        """A paragraph that is one figure becomes a ``<figure>`` with it embedded."""
        for p in list(root.iter("p")):
            images = list(p)
            if len(images) != 1 or images[0].tag != "img" or (p.text or "").strip():
                continue
            img = images[0]
            if (img.tail or "").strip():
                continue
            self.ext.found.figures.append(img.get("src", ""))
            src, alt = img.get("src", ""), img.get("alt", "")
            markup = figure(src, alt, self.ext.base_dir, self.ext.roots)
            p.remove(img)
            p.text = self.md.htmlStash.store(markup)
        for img in root.iter("img"):  # an image within text: embedded as it is
            path = own_file(img.get("src", ""), self.ext.base_dir, self.ext.roots)
            if path is not None and path.suffix == ".png" and path.is_file():
                img.set("src", data_uri(path))

    def _contents(self, root: ET.Element) -> None:
        """A table of contents (sections, their subsections) before the first section."""
        heads = [h for h in root if h.tag in ("h2", "h3")]
        self.ext.found.sections = [
            (h.get("id", ""), _text(h)) for h in heads if h.tag == "h2"
        ]
        if len(self.ext.found.sections) < 2:
            return
        nav = ET.Element("nav", {"class": "toc", "aria-label": T("page_contents")})
        ET.SubElement(nav, "p", {"class": "toc-title"}).text = T("page_contents")
        top = ET.SubElement(nav, "ul")
        section: ET.Element | None = None  # the <li> of the last h2
        for h in heads:
            parent = top
            if h.tag == "h3" and section is not None:
                sub = section.find("ul")
                parent = sub if sub is not None else ET.SubElement(section, "ul")
            item = ET.SubElement(parent, "li", {"title": _text(h)})
            if h.tag == "h2":
                section = item
            link = ET.SubElement(item, "a", {"href": f"#{h.get('id')}"})
            link.text = h.text
            for child in h:
                link.append(copy.deepcopy(child))
        # after a report's brief (its first section), else before the first section
        h2 = [h for h in heads if h.tag == "h2"]
        first = h2[1] if h2[0].get("id") == BRIEF_ID else heads[0]
        root.insert(list(root).index(first), nav)


def _clamp(td: ET.Element) -> None:
    """Set a long cell on one line, its whole text in the tooltip and on focus."""
    span = ET.Element("span", {"class": "clamp", "title": _text(td), "tabindex": "0"})
    span.text, td.text = td.text, None
    for child in list(td):
        td.remove(child)
        span.append(child)
    td.append(span)


def _link_variant(td: ET.Element, variants: dict[str, str], section: str) -> None:
    """Link a cell that is one variant's name to that variant's section."""
    children = list(td)
    if len(children) != 1 or children[0].tag != "code" or (td.text or "").strip():
        return
    code = children[0]
    target = variants.get(code.text or "")
    if target is None or target == section or (code.tail or "").strip():
        return
    link = ET.Element("a", {"href": f"#{target}"})
    td.remove(code)
    link.append(code)
    td.append(link)


FACTS_SCHEMA_VERSION = 1


def write_page(
    markdown_text: str,
    ctx: dict[str, Any],
    out_dir: Path,
    lang: str,
    figures_dir: Path | None = None,
) -> None:
    """Write ``report.html`` of one family and ``report.json`` for the index.

    ``report.json`` holds what :mod:`nsightflow.report.index` shows of the family:
    its title, whether its numbers were measured or replayed (GPU, date, recording),
    its variants' statuses, its sections and its main figure.

    Args:
        markdown_text: The family's report.
        ctx: ``context.json`` of the family.
        out_dir: The report folder; figures' paths resolve against it.
        lang: Language of the report.
        figures_dir: The plot stage's folder, where it lies outside ``out_dir``:
            figures are embedded from these two folders only.
    """
    language_ = parse_language(lang)
    stem = report_stem(language_)  # report.zh.html / .json in Chinese
    roots = (figures_dir,) if figures_dir else ()
    found = render(markdown_text, out_dir, language_, roots)
    title = ctx[col.FAMILY]["title"]
    (out_dir / f"{stem}.html").write_text(page(found.body, title, language_))
    facts = {
        "schema_version": FACTS_SCHEMA_VERSION,
        col.FAMILY: ctx[col.FAMILY][col.NAME],
        "title": title,
        "language": language_,
        **_origin(ctx),
        "statuses": dict(
            sorted(Counter(v[col.STATUS] for v in ctx["variants"]).items())
        ),
        "sections": [{"id": i, "title": t} for i, t in found.sections],
        "main_figure": found.figures[0] if found.figures else None,
    }
    (out_dir / f"{stem}.json").write_text(json.dumps(facts, indent=1) + "\n")


def _origin(ctx: dict[str, Any]) -> dict[str, Any]:
    """Measured here, replayed from a recording, or not measured; on which GPU, when.

    The GPU and date are the family's own timing run's; a replayed family without one
    gets the recording's (a recording can hold runs of several dates).
    """
    replay = ctx.get("replay") or {}
    timing = ctx["provenance"].get("timing", {})
    if not replay and not timing.get(col.DATE):
        return {
            "data": "not_measured",
            col.GPU: None,
            col.DATE: None,
            "recording": None,
        }
    return {
        "data": "replayed" if replay else "measured",
        col.GPU: timing.get(col.GPU) or replay.get(col.GPU),
        col.DATE: timing.get(col.DATE) or replay.get(col.DATE),
        "recording": replay.get(col.SOURCE),
    }
