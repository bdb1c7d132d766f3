"""``index.html``, the landing page: one card per family with its result as numbers.

Each card leads with the family's result as its report's headline states it
(``findings.csv``, section ``headline``, one per input): the best correct variant,
its time at the size the report judges, its speedup over the baseline and its share
of the ceiling of its regime, in large type. Below: whether the numbers were measured
here or replayed (GPU, one date, recording), the figure the report opens with at
the card's full width (readable, linked to the report), the variants by status,
the report's sections (folded) and its files. What a card shows of the report comes
from the family's ``report.json`` (:func:`nsightflow.report.html.write_page`); a
family without one says so and how to make it. The index's Markdown (``index.md``)
gives the page its title and closing lines; its table is not repeated here, each
row being a card.
"""

import base64
import html
import io
import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.contracts.bundle import Bundle
from nsightflow.diagnosis.record import render as render_message
from nsightflow.errors import StageInputError
from nsightflow.i18n import DEFAULT_LANGUAGE, T, language, parse_language
from nsightflow.plot.data import size_text
from nsightflow.plot.units import time_text
from nsightflow.report.embed import figure_id, own_file
from nsightflow.report.html import page, render
from nsightflow.report.paths import report_stem

FIGURE_PX = 1400  # the figure's width in the page: sharp at the card's ~1,050 px
FILES = ("report.html", "report.md", "report.pdf", "summary.csv")
OK = Status.OK
esc = html.escape


def index_page(
    markdown_text: str,
    report_dir: Path,
    families: list[str],
    lang: str = DEFAULT_LANGUAGE,
    analysis_dir: Path | None = None,
) -> str:
    """The landing page: the title, one card per family, the index's closing lines.

    Args:
        markdown_text: ``index.md`` (its heading and lines; its table is the cards).
        report_dir: The folder of the families' report folders.
        families: The families, in the order of their cards.
        lang: Language of the cards' text.
        analysis_dir: ``results/analysis`` (default: beside ``report_dir``), whose
            ``findings.csv`` hold each family's headline.

    Raises:
        StageInputError: A family's ``report.json`` is not valid JSON.
    """
    lang_ = parse_language(lang)
    lines = [ln for ln in markdown_text.splitlines() if not ln.lstrip().startswith("|")]
    head = [ln for ln in lines if ln.startswith("# ")]
    tail = [ln for ln in lines if not ln.startswith("# ")]
    analysis_dir = analysis_dir or report_dir.parent / "analysis"
    stem = report_stem(lang_)  # the cards link the reports in the index's language
    with language(lang_):
        cards = "\n".join(
            _card(report_dir, analysis_dir / family, family, stem)
            for family in families
        )
        intro = f'<p class="intro">{esc(T("index_intro"))}</p>'
        heading = esc(T("index_families"))
    return page(
        f"{render(chr(10).join(head), None, lang_).body}\n{intro}\n"
        f'<h2 id="families">{heading}</h2>\n<div class="families">\n{cards}\n</div>\n'
        f"{render(chr(10).join(tail), None, lang_).body}",
        "nsightflow reports",
        lang_,
    )


def _card(report_dir: Path, analysis: Path, family: str, stem: str) -> str:
    """One family's card (see the module); ``stem``: the report's file name."""
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
    parts += [_result(h) for h in headlines(analysis)] or [
        f'<p class="bad">{esc(T("index_none_correct"))}</p>'
    ]
    parts.append(f'<p class="origin">{esc(_origin(facts))}</p>')
    parts.append(_figure(report_dir / family, facts, f"{href}/{stem}.html"))
    parts.append(f"<p>{_statuses(facts.get('statuses', {}))}</p>")
    sections = facts.get("sections", [])
    items = "".join(
        f'<li><a href="{href}/{stem}.html#{quote(s["id"])}">{esc(s["title"])}</a></li>'
        for s in sections
    )
    summary = esc(T("index_sections", n=len(sections)))
    parts.append(f"<details><summary>{summary}</summary><ul>{items}</ul></details>")
    names = [name.replace("report.", f"{stem}.", 1) for name in FILES]
    files = " ".join(f'<a href="{href}/{name}">{name}</a>' for name in names)
    parts.append(f'<p class="files">{esc(T("index_files"))} {files}</p>')
    return f'<section class="family">{"".join(parts)}</section>'


def headlines(folder: Path) -> list[dict[str, Any]]:
    """The family's headline findings' fields (one per input), from findings.csv."""
    found = Bundle(folder).findings
    if found is None or col.SECTION not in found or col.PARAMS not in found:
        return []
    rows = found[found[col.SECTION] == "headline"]
    return [json.loads(str(p)) for p in rows[col.PARAMS]]


def _text(value: Any) -> str:
    """A headline field: a message (``{"@": key, ...}``) in words, else as it is."""
    if isinstance(value, dict) and "@" in value:
        return render_message(str(value["@"]), value)
    return str(value)


def _result(h: dict[str, Any]) -> str:
    """The headline as four large numbers: variant, time, speedup, % of ceiling."""
    named = (
        isinstance(h.get(col.INPUT), dict) and h[col.INPUT].get("@") == "input_named"
    )
    label = f' <span class="at">{esc(_text(h["input"]))}</span>' if named else ""
    cells = [
        ("index_best", f"<code>{esc(str(h['variant']))}</code>{label}"),
        (
            "index_time",
            f"{esc(time_text(float(h['time'])))} "
            f'<span class="at">n = {esc(size_text(h["n"]))}</span>',
        ),
        (
            "index_speedup",
            f"{float(h['speedup']):.2f}x "
            f'<span class="at">{esc(T("index_over"))} '
            f"<code>{esc(str(h['baseline']))}</code></span>",
        ),
        (
            "index_ceiling",
            f"{float(h['pct']):.0f}% "
            f'<span class="at">{esc(T("index_of", ceiling=_text(h["ceiling"])))}, '
            f"{esc(_text(h['regime']))}</span>",
        ),
    ]
    items = "".join(
        f"<div><dt>{esc(T(key))}</dt><dd>{value}</dd></div>" for key, value in cells
    )
    return f'<dl class="result">{items}</dl>'


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
        col.GPU: facts.get(col.GPU) or "?",
        col.DATE: _date(facts.get(col.DATE)),
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
        f"{int(n)} {esc(str(status))}"
        if status == OK
        else f'<span class="bad">{int(n)} {esc(str(status))}</span>'
        for status, n in sorted(statuses.items(), key=lambda s: (s[0] != OK, s[0]))
    )
    # the template is text, the counts markup: escape one, not the other
    return esc(T("index_statuses", counts="\0")).replace("\0", counts or "0")


def _figure(folder: Path, facts: dict[str, Any], report: str) -> str:
    """The family's first figure at the card's width, linked to it in the report."""
    name = facts.get("main_figure")
    if not name:
        return ""
    path = own_file(str(name), folder)  # report.json is data: its own folder only
    if path is None or not path.is_file():
        text = T("index_no_figure", path=(folder / name).as_posix())
        return f'<p class="bad">{esc(text)}</p>'
    from PIL import Image

    with Image.open(path) as image:
        image.thumbnail((FIGURE_PX, FIGURE_PX * 4))
        buffer = io.BytesIO()
        # zlib's default level: optimize=True (level 9 and a search) took 1.6 s of
        # CPU for the eight cards' figures against 0.4 s, for a 2% smaller page
        image.save(buffer, format="PNG")
    data = base64.b64encode(buffer.getvalue()).decode()
    alt = esc(T("index_figure", family=facts.get("title") or folder.name))
    return (
        f'<a href="{report}#{esc(figure_id(name))}">'
        f'<img class="figure" alt="{alt}" src="data:image/png;base64,{data}" /></a>'
    )
