"""Report stage: ``report.md``, ``report.html`` and ``summary.csv`` of one family.

A report in another language than English is ``report.<language>.md`` (and
``.html``, ``.pdf``), so the languages coexist; figures and the summary are shared.

The sections themselves are built in :mod:`nsightflow.report.sections.family`; this module writes the
formats: Markdown, HTML (self-contained, user strings escaped), PDF, and the index
over all families.
"""

import base64
import html
import json
import re
from pathlib import Path

import pandas as pd

from nsightflow.report.i18n import DEFAULT_LANGUAGE, HTML_LANG, parse_language
from nsightflow.report.paths import index_stem, report_stem
from nsightflow.report.sections.family import ReportBuilder

SUMMARY_COLUMNS = [
    "family",
    "variant",
    "size",
    "status",
    "time_median_us",
    "time_iqr_us",
    "speedup_vs_baseline",
    "speedup_vs_previous",
    "gbps",
    "gflops",
    "pct_of_copy_bw",
    "pct_of_fp32_peak",
]
HTML_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60em; margin: 2em auto;
       padding: 0 1em; line-height: 1.45; color: #222; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
code, pre { background: #f6f8fa; font-size: 0.88em; }
pre { padding: 0.8em; overflow-x: auto; }
img { max-width: 100%; }
"""


def summary_frame(analysis: pd.DataFrame) -> pd.DataFrame:
    """``summary.csv``: one row per variant and size, the columns ARCHITECTURE names."""
    return analysis.reindex(columns=SUMMARY_COLUMNS)


def to_html(
    markdown_text: str,
    title: str,
    base_dir: Path | None = None,
    language: str = DEFAULT_LANGUAGE,
) -> str:
    """Standalone HTML of a Markdown report.

    Raw HTML in the Markdown is not passed through: every user-supplied string (variant
    names, ideas, compiler messages) arrives escaped. With ``base_dir``, figures are
    embedded as data URIs so the page is one self-contained file.

    Args:
        markdown_text: The report.
        title: The page title.
        base_dir: Folder the figures' relative paths resolve against; None leaves
            them as links.
        language: Language of the text. A page in any language but English says
            so in ``<html lang>``, which browsers (and :mod:`nsightflow.report.pdf.build`) read to
            pick fonts; an English page is written as before, without it.
    """
    import markdown

    md = markdown.Markdown(extensions=["tables", "fenced_code"])
    md.preprocessors.deregister("html_block")
    md.inlinePatterns.deregister("html")
    body = md.convert(markdown_text)
    # A pipe in a table cell's code span is escaped for GitHub's Markdown (``\|``);
    # Python-Markdown splits such cells right but keeps the backslash in the code.
    body = _CELL_CODE.sub(lambda m: m.group(0).replace("\\|", "|"), body)
    if base_dir is not None:
        body = _IMG.sub(lambda m: _embed(m, base_dir), body)
    lang = parse_language(language)
    html_tag = (
        "<html>" if lang == DEFAULT_LANGUAGE else f'<html lang="{HTML_LANG[lang]}">'
    )
    return (
        f"<!doctype html>\n{html_tag}<head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title>"
        f"<style>{HTML_STYLE}</style></head><body>\n{body}\n</body></html>\n"
    )


_CELL_CODE = re.compile(r"<td[^>]*><code>.*?</code>")
_IMG = re.compile(r'<img alt="([^"]*)" src="([^"]+\.png)"')


def _embed(match: re.Match[str], base_dir: Path) -> str:
    path = base_dir / match.group(2)
    if not path.is_file():
        return match.group(0)
    data = base64.b64encode(path.read_bytes()).decode()
    return f'<img alt="{match.group(1)}" src="data:image/png;base64,{data}"'


def _write_csv(frame: pd.DataFrame, path: Path) -> None:
    # 10 significant digits: identical files from the same data on any platform.
    frame.to_csv(path, index=False, float_format="%.10g")


def write_summary(analysis_dir: Path, out_dir: Path) -> None:
    """Write ``summary.csv`` of one family (the same in every language)."""
    analysis = pd.read_csv(analysis_dir / "analysis.csv")
    out_dir.mkdir(parents=True, exist_ok=True)
    _write_csv(summary_frame(analysis), out_dir / "summary.csv")


def write_report(
    analysis_dir: Path,
    figures_dir: Path,
    out_dir: Path,
    language: str = DEFAULT_LANGUAGE,
    timeline: Path | None = None,
    summary: bool = True,
) -> None:
    """Write report.md and report.html (figures embedded) of one family.

    In another language than English the files are ``report.<language>.md`` and
    ``.html`` (:func:`report_stem`).

    Args:
        analysis_dir: Folder of the analyze stage's files for the family.
        figures_dir: Folder of the plot stage's figures.
        out_dir: Folder the report is written to.
        language: Language of the report's text, ``en`` or ``zh``; figures and
            ``summary.csv`` are the same in every language.
        timeline: ``timeline_summary.csv`` of the family; with it the report has a
            timeline section (its figure ``timeline.png`` in ``figures_dir``).
        summary: Also write ``summary.csv`` (:func:`write_summary`).

    Raises:
        ValueError: The language is not one the catalogue has.
    """
    stem = report_stem(language)
    analysis = pd.read_csv(analysis_dir / "analysis.csv")
    stalls = pd.read_csv(analysis_dir / "stalls.csv")
    rules_path = analysis_dir / "rules.csv"
    rules = pd.read_csv(rules_path) if rules_path.stat().st_size > 1 else pd.DataFrame()
    ctx = json.loads((analysis_dir / "context.json").read_text())
    if timeline is not None:
        ctx["timeline"] = pd.read_csv(timeline)
    hotspots = analysis_dir / "hotspots.csv"
    if hotspots.is_file():  # absent in an analysis older than issue 22
        ctx["hotspots"] = pd.read_csv(hotspots, keep_default_na=False)
    text = ReportBuilder(analysis, stalls, rules, ctx, language=language).build()
    rel = (
        figures_dir.relative_to(out_dir)
        if figures_dir.is_relative_to(out_dir)
        else figures_dir
    )
    text = text.replace("](figures/", f"]({rel.as_posix()}/")
    out_dir.mkdir(parents=True, exist_ok=True)
    title = ctx["family"]["title"]
    (out_dir / f"{stem}.md").write_text(text)
    page = to_html(text, title, base_dir=out_dir, language=language)
    (out_dir / f"{stem}.html").write_text(page)
    if summary:
        _write_csv(summary_frame(analysis), out_dir / "summary.csv")


def write_index(
    report_dir: Path, families: list[str], language: str = DEFAULT_LANGUAGE
) -> None:
    """``index.md`` / ``index.html`` over every family's report.

    In another language than English: ``index.<language>.md`` / ``.html``, linking
    that language's reports.
    """
    stem, index = report_stem(language), index_stem(language)
    rows = []
    for family in families:
        summary = pd.read_csv(report_dir / family / "summary.csv")
        ok = summary[summary["status"] == "ok"]
        key = int(summary["size"].max())
        best = ok[ok["size"] == key].nsmallest(1, "time_median_us")
        # a size a variant does not accept, or one the recording lacks, is no failure
        bad = ~summary["status"].isin(["ok", "unsupported", "not_recorded"])
        failed = sorted(set(summary[bad]["variant"]))
        rows.append(
            {
                "family": f"[{family}]({family}/{stem}.html)",
                "variants": summary["variant"].nunique(),
                "fastest at its largest size": (
                    f"`{best.iloc[0]['variant']}` (n = {key}, "
                    f"{best.iloc[0]['speedup_vs_baseline']:.2f}x)"
                    if not best.empty
                    else "none correct"
                ),
                "failed": ", ".join(f"`{v}`" for v in failed) or "none",
                "files": f"[md]({family}/{stem}.md), [pdf]({family}/{stem}.pdf), "
                f"[csv]({family}/summary.csv)",
            }
        )
    text = (
        "# nsightflow reports\n\n"
        + pd.DataFrame(rows).to_markdown(index=False)
        + "\n\nMeasured ceilings of the GPU: [ceilings.csv](ceilings.csv).\n"
    )
    (report_dir / f"{index}.md").write_text(text)
    (report_dir / f"{index}.html").write_text(to_html(text, "nsightflow reports"))
