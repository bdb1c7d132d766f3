"""What a reader of each family's report faces, counted on a replay of the recording.

One replay of every bundled family, in English and in Chinese, with the PDFs. The
reader (a GPU performance engineer) reads the body, everything before the first
heading that names the appendix, in five minutes: so it holds at most BODY_WORDS
words, a step at most STEP_WORDS, the appendix starts by page APPENDIX_BY of the
PDF, and no page of the body is more than MAX_BLANK blank. Nothing is lost on the
way: every finding of findings.csv is in the report, in its language.
"""

import json
import math
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from PIL import Image
from pypdf import PdfReader

from nsightflow import i18n
from nsightflow.diagnosis.record import render_row
from nsightflow.report.paths import report_stem

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = sorted(p.parent.name for p in (ROOT / "kernels").glob("*/family.yaml"))
LANGUAGES = ("en", "zh")
BODY_WORDS = 3000
STEP_WORDS = 300
APPENDIX_BY = {"sgemm": 9}  # the PDF page the appendix starts on, at the latest
APPENDIX_BY_DEFAULT = 7
MAX_BLANK = 0.40  # of a body page's text area
BLANK_RUN_MM = 8.0  # a run of blank rows at least this tall counts as blank space
TEXT_AREA_MM = (14.0, 297.0 - 18.0)  # the text area of the PDF's A4 page, top-down
CJK = re.compile(r"[\u3400-\u9fff]")
CHARS_PER_ZH_WORD = 1.5  # a Chinese word averages 1.5 characters
APPENDIX = re.compile(r"^#{1,3} .*(Appendix|附录)", re.M)

pytestmark = [
    pytest.mark.skipif(
        shutil.which("pdftoppm") is None, reason="needs poppler-utils (pdftoppm)"
    ),
    # the session's replay (8 families, 2 languages, 16 PDFs; tests/conftest.py) is
    # the first test's setup: 12.6 minutes measured on 2 cores shared with other jobs
    # (load 12)
    pytest.mark.timeout(1800),
]


@pytest.fixture(scope="module")
def reports(every_family_replay: Path) -> Path:
    """``results/report`` of a replay of every family, in both languages."""
    return every_family_replay / "results" / "report"


def words(text: str) -> int:
    """Words a reader reads: tokens with a letter or digit; Chinese by characters."""
    cjk = len(CJK.findall(text))
    latin = [t for t in CJK.sub(" ", text).split() if re.search(r"\w", t)]
    return len(latin) + math.ceil(cjk / CHARS_PER_ZH_WORD)


def body_of(md: str) -> str:
    """Everything before the first heading that names the appendix."""
    match = APPENDIX.search(md)
    assert match, "no appendix heading"
    return md[: match.start()]


def steps_of(body: str) -> dict[str, str]:
    """Each step's section of the body: its heading's variant -> its text."""
    parts = re.split(r"^### ", body, flags=re.M)[1:]
    out = {}
    for part in parts:
        found = re.match(r"\d+\.\d+ `([^`]+)`", part)
        if found:
            out[found.group(1)] = part
    return out


def _md(reports: Path, family: str, lang: str) -> str:
    return (reports / family / f"{report_stem(lang)}.md").read_text()


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("family", FAMILIES)
def test_the_body_and_each_step_stay_within_their_words(reports, family, lang):
    body = body_of(_md(reports, family, lang))
    assert words(body) <= BODY_WORDS, (family, lang, words(body))
    steps = steps_of(body)
    assert steps, family
    long = {v: words(t) for v, t in steps.items() if words(t) > STEP_WORDS}
    assert not long, long


def _sentences(step: str) -> list[str]:
    """A step's sentences, numbers, code and links left out: their templates' heads."""
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", " ", step.split("\n", 1)[-1])
    text = re.sub(r"`[^`]*`|\[\^m\d+\]|\([^)]*\)", " ", text)
    heads = []
    for sentence in re.split(r"(?<=[.。])\s+|\n+", text):
        words = re.sub(r"\d[\d.,%]*x?", "#", sentence).split()
        if len(words) >= 4:
            heads.append(" ".join(words[:4]))
    return heads


@pytest.mark.parametrize("family", FAMILIES)
def test_a_step_names_its_primary_cause_with_a_number_and_its_line(reports, family):
    md = _md(reports, family, "en")
    ctx = json.loads(
        (reports.parent / "analysis" / family / "context.json").read_text()
    )
    variants = {v["name"]: v for v in ctx["variants"]}
    hot = pd.read_csv(reports.parent / "analysis" / family / "hotspots.csv")
    for name, text in steps_of(body_of(md)).items():
        v = variants[name]
        before = variants[v["improves_on"]]
        if v["status"] != "ok" or v.get("input", "") != before.get("input", ""):
            continue
        # the Why runs on through ncu's counters, where a step that changed its
        # configuration too gives the code's parts and their line
        why = re.search(r"\*\*Why:\*\* (.*?)(?=\*\*(?!In ncu)[A-Z]|\n\n|$)", text, re.S)
        assert why and re.search(r"\d", why.group(1)), (family, name)
        # a line is cited where the hot lines have one: a library kernel without line
        # information (CUB's, under cupy.sum) is sampled at line 0 of no file
        own = hot[(hot["variant"] == name) & (hot["line"] > 0)]
        if not own.empty:
            assert re.search(r"line (?:is )?\d+ of `", why.group(1)), (family, name)
        templates = _sentences(text)
        assert len(templates) == len(set(templates)), (family, name, templates)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("family", FAMILIES)
def test_every_finding_is_in_the_report(reports, family, lang):
    md = " ".join(_md(reports, family, lang).split())
    found = pd.read_csv(
        reports.parent / "analysis" / family / "findings.csv",
        keep_default_na=False,
        na_values=[""],
    )
    assert len(found) > 0
    with i18n.language(lang):
        missing = [
            (r["section"], r["variant"], r["rule"])
            for r in found.to_dict("records")
            if " ".join(render_row(r).split()) not in md
        ]
    assert not missing, missing
    with i18n.language(lang):  # the tables of the report before it had an appendix
        headers = [i18n.T(key) for key in TABLE_KEYS]
    assert [h for h in headers if f"| {h} " not in md] == []


# A column of each table the report had before its appendix: the summary, the times
# over sizes, the bound per size, the measurement checks, the provenance, the raw
# files; each step's metrics and each baseline's facts are findings (above).
TABLE_KEYS = (
    "col_rank",
    "col_size",
    "col_vs_floor",
    "col_ncu_vs_events",
    "col_item",
    "col_ncu_reports",
)


def _pdf(reports: Path, family: str, lang: str) -> Path:
    return reports / family / f"{report_stem(lang)}.pdf"


def appendix_page(pdf: Path) -> int:
    """The page (from 1) the PDF's outline says the appendix starts on."""
    reader = PdfReader(pdf)
    stack = list(reader.outline)
    while stack:
        item = stack.pop(0)
        if isinstance(item, list):
            stack = item + stack
        elif re.search(r"Appendix|附录", str(item.title)):
            return reader.get_destination_page_number(item) + 1
    raise AssertionError(f"{pdf}: no appendix in the outline")


def blank_shares(pdf: Path, pages: int, folder: Path) -> list[float]:
    """Per page, the share of the text area in runs of blank rows of BLANK_RUN_MM."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        ["pdftoppm", "-gray", "-r", "40", "-l", str(pages), str(pdf), folder / "p"],
        check=True,
    )
    shares = []
    for path in sorted(folder.glob("p-*.pgm")):
        with Image.open(path) as image:
            pixels = np.asarray(image)
        px_mm = pixels.shape[0] / 297.0
        top, bottom = (int(mm * px_mm) for mm in TEXT_AREA_MM)
        inked = (pixels[top:bottom] < 200).any(axis=1).tolist()
        blank, run = 0, 0
        for ink in [*inked, True]:
            if ink:
                blank += run if run >= BLANK_RUN_MM * px_mm else 0
                run = 0
            else:
                run += 1
        shares.append(blank / (bottom - top))
    return shares


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("family", FAMILIES)
def test_the_appendix_starts_early_and_no_body_page_is_mostly_blank(
    reports, family, lang, tmp_path
):
    pdf = _pdf(reports, family, lang)
    page = appendix_page(pdf)
    assert page <= APPENDIX_BY.get(family, APPENDIX_BY_DEFAULT), (family, lang, page)
    body_pages = max(page - 1, 1)
    shares = blank_shares(pdf, body_pages, tmp_path)
    assert len(shares) == body_pages
    assert max(shares) <= MAX_BLANK, (family, lang, [round(s, 2) for s in shares])


def test_the_pdf_contents_give_page_numbers(reports):
    pdf = _pdf(reports, "sgemm", "en")
    text = subprocess.run(
        ["pdftotext", "-layout", "-l", "3", str(pdf), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    entries = dict(
        re.findall(r"^\s*(2\. Optimization steps|Appendix[^.]*?)\s+(\d+)$", text, re.M)
    )
    assert set(entries) == {
        "2. Optimization steps",
        "Appendix: every measurement and finding",
    }
    assert int(entries["Appendix: every measurement and finding"]) == appendix_page(pdf)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("family", FAMILIES)
def test_every_link_of_the_markdown_lands_on_an_anchor(reports, family, lang):
    md = _md(reports, family, lang)
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', md))
    targets = set(re.findall(r"\]\(#([^)]+)\)", md))
    assert targets <= anchors, sorted(targets - anchors)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_step_figure_is_drawn_where_a_report_shows_it_and_nowhere_else(
    reports, family
):
    drawn = {p.name for p in (reports / family / "figures" / "steps").glob("*.png")}
    shown = {
        name
        for lang in LANGUAGES
        for name in re.findall(
            r"figures/steps/(step_\S+?\.png)", _md(reports, family, lang)
        )
    }
    assert drawn == shown
    if family == "histogram":  # its skewed-input ladder starts with a step onto it
        assert "step_v3_global_atomic_skewed.png" not in drawn


def _brief_table(reports: Path, family: str) -> tuple[list[str], list[list[str]]]:
    """The brief's ladder table: its header's cells and each variant row's cells."""
    brief = body_of(_md(reports, family, "en")).split("## 1.", 1)[0]
    lines = brief.splitlines()
    header = next(line for line in lines if line.startswith("| variant"))
    split = [line for line in lines if line.startswith("| `")]
    return [c.strip() for c in header.strip("|").split("|")], [
        [c.strip() for c in row.strip("|").split("|")] for row in split
    ]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_brief_gives_what_limits_each_variant_beside_what_its_step_changed(
    reports, family
):
    cells, rows = _brief_table(reports, family)
    assert "limits it now" in cells and "this step changed" in cells
    at = cells.index("limits it now")
    # every variant that ran has a limiter; failed ones have none to give
    for row_cells in rows:
        timed = row_cells[cells.index("speedup")]
        assert bool(row_cells[at]) == bool(timed), row_cells


@pytest.mark.parametrize("family", FAMILIES)
def test_no_variant_is_called_latency_bound_beside_a_unit_it_is_bound_by(
    reports, family
):
    # SGEMM v2 read "latency" beside "L1/shared 99%": a unit at its peak bounds it
    cells, rows = _brief_table(reports, family)
    regime, limit = cells.index("roofline regime"), cells.index("limits it now")
    seen = set()
    for row_cells in rows:
        row = " | ".join(row_cells)
        unit = re.match(r"[^(]*? (\d+)%", row_cells[limit])
        if row_cells[regime] == "latency":
            assert row_cells[limit].startswith("latency"), row
        if row_cells[regime] == "under the roofs":
            assert unit and int(unit.group(1)) >= 60, row
        seen.add(row_cells[regime])
    if family in ("sgemm", "reduction", "scan"):  # their shared-memory trees
        assert "under the roofs" in seen


@pytest.mark.parametrize("family", ["sgemm", "jacobi2d"])
def test_a_sweep_says_where_its_best_is_not_the_fastest_at_the_report_s_size(
    reports, family
):
    # the best is ranked over every swept size, the other sections compare at the
    # largest profiled one: SGEMM v4's best takes 8,245 us at 4096 against 8,190 us
    sweep = pd.read_csv(reports.parent / "analysis" / family / "sweep.csv")
    ctx = json.loads(
        (reports.parent / "analysis" / family / "context.json").read_text()
    )
    n = max(int(s) for s in ctx["family"]["profile_sizes"])
    md = _md(reports, family, "en")
    said = 0
    for variant, configs in sweep[sweep["status"] == "ok"].groupby("variant"):
        fastest = configs.sort_values(f"time_us_{n}").iloc[0]
        best = configs[configs["is_best"]].iloc[0]
        if fastest["config_id"] != best["config_id"]:
            said += 1
            assert (
                f"`{fastest['config_id']}` takes {fastest[f'time_us_{n}']:,.1f} against "
                f"{best[f'time_us_{n}']:,.1f} us"
                in md
                or f"`{fastest['config_id']}` is faster: {fastest[f'time_us_{n}']:,.1f}"
                in md
            ), variant
    assert said or family == "jacobi2d"
