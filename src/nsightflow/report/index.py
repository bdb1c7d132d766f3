"""``index.html``: the index's Markdown (one row per family) and a card per family.

Each card says whether the family's numbers were measured here or replayed (GPU, date,
recording), shows its main figure as a thumbnail, counts its variants by status and
links to each of its report's sections and its files. What a card shows comes from the
family's ``report.json`` (:func:`nsightflow.report.html.write_page`); a family without
one says so and how to make it.
"""

import base64
import html
import io
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from nsightflow.errors import StageInputError
from nsightflow.i18n import DEFAULT_LANGUAGE, T, language, parse_language
from nsightflow.report.embed import figure_id
from nsightflow.report.html import page, render
from nsightflow.report.paths import report_stem

THUMBNAIL_PX = 480  # width of a card's figure: sharp at 240 CSS pixels on a 2x screen
FILES = ("report.html", "report.md", "report.pdf", "summary.csv")
OK = "ok"


def index_page(
    markdown_text: str,
    report_dir: Path,
    families: list[str],
    lang: str = DEFAULT_LANGUAGE,
) -> str:
    """The index page: the index's Markdown, then one card per family.

    Args:
        markdown_text: ``index.md``.
        report_dir: The folder of the families' report folders.
        families: The families, in the order of their cards.
        lang: Language of the cards' text.

    Raises:
        StageInputError: A family's ``report.json`` is not valid JSON.
    """
    lang_ = parse_language(lang)
    body = render(markdown_text, None, lang_).body
    stem = report_stem(lang_)  # the cards link the reports in the index's language
    with language(lang_):
        cards = "\n".join(_card(report_dir, family, stem) for family in families)
        heading = html.escape(T("index_families"))
    return page(
        f'{body}\n<h2 id="families">{heading}</h2>\n<div class="families">\n'
        f"{cards}\n</div>",
        "nsightflow reports",
        lang_,
    )


def _card(report_dir: Path, family: str, stem: str = "report") -> str:
    """One family's card (see the module); ``stem``: the report's file name."""
    esc = html.escape
    href = quote(family)
    facts_path = report_dir / family / f"{stem}.json"
    head = f'<h3 id="family-{esc(family)}"><a href="{href}/{stem}.html">'
    if not facts_path.is_file():
        missing = T("index_no_facts", path=facts_path.as_posix())
        return (
            f'<section class="family">{head}{esc(family)}</a></h3>'
            f'<p class="bad">{esc(missing)}</p></section>'
        )
    facts = _facts(facts_path)
    parts = [f"{head}{esc(str(facts.get('title') or family))}</a></h3>"]
    parts.append(f"<p>{esc(_origin(facts))}</p>")
    parts.append(_figure(report_dir / family, facts, f"{href}/{stem}.html"))
    parts.append(f"<p>{_statuses(facts.get('statuses', {}))}</p>")
    sections = "".join(
        f'<li><a href="{href}/{stem}.html#{quote(s["id"])}">{esc(s["title"])}</a></li>'
        for s in facts.get("sections", [])
    )
    parts.append(f"<p>{esc(T('index_sections'))}</p><ul>{sections}</ul>")
    names = [name.replace("report.", f"{stem}.", 1) for name in FILES]
    files = " ".join(f'<a href="{href}/{name}">{name}</a>' for name in names)
    parts.append(f'<p class="files">{esc(T("index_files"))} {files}</p>')
    return f'<section class="family">{"".join(parts)}</section>'


def _facts(path: Path) -> dict[str, Any]:
    try:
        facts = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise StageInputError(
            f"{path}: not valid JSON ({exc}); re-run the family's report stage"
        ) from exc
    if not isinstance(facts, dict):
        raise StageInputError(f"{path}: not a JSON object; re-run the report stage")
    return facts


def _origin(facts: dict[str, Any]) -> str:
    """Measured or replayed, with GPU and date."""
    fields = {
        "gpu": facts.get("gpu") or "?",
        "date": _date(facts.get("date")),
        "recording": facts.get("recording") or "?",
    }
    data = facts.get("data")
    if data == "replayed":
        return T("index_replayed", **fields)
    if data == "measured":
        return T("index_measured", **fields)
    return T("index_not_measured")


def _date(value: object) -> str:
    """``2026-11-30 01:55 UTC`` from an ISO timestamp; anything else as it is."""
    try:
        when = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value or "?")
    if when.utcoffset() == timedelta(0):
        return when.strftime("%Y-%m-%d %H:%M UTC")
    return when.isoformat(sep=" ", timespec="minutes")


def _statuses(statuses: dict[str, int]) -> str:
    """``6 ok`` or ``5 ok, 1 wrong``: the variants by status, failures marked."""
    counts = ", ".join(
        f"{int(n)} {html.escape(str(status))}"
        if status == OK
        else f'<span class="bad">{int(n)} {html.escape(str(status))}</span>'
        for status, n in sorted(statuses.items(), key=lambda s: (s[0] != OK, s[0]))
    )
    # the template is text, the counts markup: escape one, not the other
    return html.escape(T("index_statuses", counts="\0")).replace("\0", counts or "0")


def _figure(folder: Path, facts: dict[str, Any], report: str) -> str:
    """The thumbnail of the family's main figure, linked to the report page."""
    name = facts.get("main_figure")
    if not name:
        return ""
    path = folder / name
    if not path.is_file():
        text = T("index_no_figure", path=path.as_posix())
        return f'<p class="bad">{html.escape(text)}</p>'
    from PIL import Image

    with Image.open(path) as image:
        image.thumbnail((THUMBNAIL_PX, THUMBNAIL_PX * 4))
        buffer = io.BytesIO()
        image.save(buffer, format="PNG", optimize=True)
    data = base64.b64encode(buffer.getvalue()).decode()
    alt = html.escape(T("index_figure", family=facts.get("title") or folder.name))
    return (
        f'<a href="{report}#{html.escape(figure_id(name))}">'
        f'<img class="thumb" alt="{alt}" src="data:image/png;base64,{data}" /></a>'
    )
