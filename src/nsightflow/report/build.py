"""Report stage: ``report.md``, ``report.html`` and ``summary.csv`` of one family.

A report in another language than English is ``report.<language>.md`` (and
``.html``, ``.pdf``), so the languages coexist; figures and the summary are shared.

The sections themselves are built in :mod:`nsightflow.report.sections.family`; this module writes the
formats: Markdown, HTML (:mod:`nsightflow.report.html`: self-contained, user strings
escaped), and the index over all families (its page: :mod:`nsightflow.report.index`).
"""

import json
import re
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.contracts import (
    SUMMARY,
    SWEEP,
    SWEEP_SUMMARY,
    TIMELINE,
    TIMELINE_SUMMARY,
    Status,
)
from nsightflow.contracts import columns as col
from nsightflow.contracts.bundle import Bundle
from nsightflow.diagnosis.record import render
from nsightflow.i18n import DEFAULT_LANGUAGE
from nsightflow.i18n.markup import code_span
from nsightflow.report.html import write_page
from nsightflow.report.index import index_page
from nsightflow.report.paths import index_stem, report_stem
from nsightflow.report.sections.family import ReportBuilder
from nsightflow.report.summary import summary_frame, write_csv, write_summary_csv
from nsightflow.report.text import plain

__all__ = [
    "summary_frame",
    "write_index",
    "write_report",
    "write_summary",
]


def write_summary(analysis_dir: Path, out_dir: Path) -> None:
    """Write ``summary.csv`` of one family (the same in every language)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    write_summary_csv(analysis_dir / "analysis.csv", out_dir / "summary.csv")


def write_report(
    analysis_dir: Path,
    figures_dir: Path,
    out_dir: Path,
    language: str = DEFAULT_LANGUAGE,
    timeline: Path | None = None,
    sweep: Path | None = None,
    summary: bool = True,
) -> None:
    """Write report.md, report.html (figures embedded), report.json and summary.csv.

    In another language than English the report's files are ``report.<language>.md``,
    ``.html`` and ``.json`` (:func:`~nsightflow.report.paths.report_stem`).

    Args:
        analysis_dir: Folder of the analyze stage's files for the family.
        figures_dir: Folder of the plot stage's figures.
        out_dir: Folder the report is written to.
        language: Language of the report's text, ``en`` or ``zh``; figures and
            ``summary.csv`` are the same in every language.
        timeline: ``timeline_summary.csv`` of the family; with it the report has a
            timeline section (its figure ``timeline.png`` in ``figures_dir``).
        sweep: ``sweep_summary.csv`` of the family (``sweep.csv`` beside it); with
            it the report has a sweep section (heatmaps in ``figures_dir/sweep``).
        summary: Also write ``summary.csv`` (:func:`write_summary`).

    Raises:
        ValueError: The language is not one the catalogue has.
    """
    stem = report_stem(language)
    bundle = Bundle(analysis_dir)
    analysis = bundle.analysis
    ctx = _context(bundle, timeline, sweep)
    text = ReportBuilder(
        analysis,
        bundle.stalls,
        bundle.rules,
        ctx,
        language=language,
        findings=bundle.findings,
    ).build()
    rel = (
        figures_dir.relative_to(out_dir)
        if figures_dir.is_relative_to(out_dir)
        else figures_dir
    )
    text = text.replace("](figures/", f"]({rel.as_posix()}/")
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / f"{stem}.md").write_text(text)
    # the page gives each heading its id; the Markdown's anchor lines would repeat it
    page = re.sub(r'^<a id="[^"]+"></a>\n', "", text, flags=re.M)
    write_page(page, ctx, out_dir, language, figures_dir)
    if summary:
        write_csv(summary_frame(analysis), out_dir / "summary.csv")


def _context(
    bundle: Bundle, timeline: Path | None, sweep: Path | None
) -> dict[str, Any]:
    """``context.json`` with the optional tables its sections read."""
    ctx: dict[str, Any] = dict(bundle.context)
    if timeline is not None:
        ctx["timeline"] = TIMELINE_SUMMARY.read(timeline)
        events = timeline.with_name(TIMELINE.name)  # beside it: the traced activities
        if events.is_file():
            ctx["timeline_events"] = TIMELINE.read(events)
    if bundle.hotspots is not None:  # absent in analyses made before warp sampling
        ctx["hotspots"] = bundle.hotspots
    if sweep is not None:
        ctx["sweep"] = {
            "summary": SWEEP_SUMMARY.read(sweep),
            col.CONFIGS: SWEEP.read(sweep.parent / SWEEP.name),
        }
    return ctx


def write_index(
    report_dir: Path,
    families: list[str],
    analysis_dir: Path | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> None:
    """``index.md`` / ``index.html`` over every family's report.

    Each family's line is its report's own headline (the ``headline`` findings of
    ``findings.csv``: the same variant at the same size, one per input) and says
    whether its numbers were replayed, from which GPU, or measured here.

    Args:
        report_dir: ``results/report``.
        families: The families, in the order listed.
        analysis_dir: ``results/analysis`` (default: beside ``report_dir``).
        language: The reports linked: ``index.<language>.md`` / ``.html`` link
            ``report.<language>.*`` in another language than English.
    """
    analysis_dir = analysis_dir or report_dir.parent / "analysis"
    stem, index = report_stem(language), index_stem(language)
    rows = []
    for family in families:
        summary = SUMMARY.read(report_dir / family / SUMMARY.name)
        # a size a variant does not accept, or one the recording lacks, is no failure
        bad = ~summary[col.STATUS].isin(
            [Status.OK, Status.UNSUPPORTED, Status.NOT_RECORDED]
        )
        failed = sorted(set(summary[bad][col.VARIANT]))
        rows.append(
            {
                col.FAMILY: f"[{family}]({family}/{stem}.html)",
                "variants": summary[col.VARIANT].nunique(),
                "headline": _headlines(analysis_dir / family) or "none correct",
                "numbers": _origin_of(analysis_dir / family),
                "failed": ", ".join(f"`{v}`" for v in failed) or "none",
                col.FILES: f"[md]({family}/{stem}.md), [pdf]({family}/{stem}.pdf), "
                f"[csv]({family}/summary.csv)",
            }
        )
    text = (
        "# nsightflow reports\n\n"
        + pd.DataFrame(rows).to_markdown(index=False)
        + "\n\nMeasured ceilings of the GPU: [ceilings.csv](ceilings.csv).\n"
    )
    (report_dir / f"{index}.md").write_text(text)
    html = index_page(text, report_dir, families, language)
    (report_dir / f"{index}.html").write_text(html)


def _headlines(folder: Path) -> str:
    """The family report's headlines (one per input), as one table cell."""
    found = Bundle(folder).findings
    if found is None:
        return ""
    heads = found[found[col.SECTION] == "headline"]
    texts = [render("index_headline", json.loads(str(p))) for p in heads[col.PARAMS]]
    return "; ".join(texts)


def _origin_of(folder: Path) -> str:
    """Replayed (from which recording and GPU) or measured, from ``context.json``."""
    path = folder / "context.json"
    if not path.is_file():
        return "n/a"
    ctx = json.loads(path.read_text())
    replay = ctx.get("replay")
    timing = ctx.get("provenance", {}).get("timing", {})
    if replay:  # the recording's text, literal in the table
        source = code_span(str(replay.get(col.SOURCE, "?")))
        gpu = plain(replay.get(col.GPU, "?"))
        date = plain(str(replay.get(col.DATE, "?"))[:10])
        double = "test double (not measured): " if replay.get("test_double") else ""
        return f"{double}replayed from {source}, recorded on {gpu} ({date})"
    gpu, date = (
        plain(timing.get(col.GPU, "?")),
        plain(str(timing.get(col.DATE, "?"))[:10]),
    )
    return f"measured on {gpu} ({date})"
