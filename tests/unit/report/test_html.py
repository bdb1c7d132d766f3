"""report.html and index.html without a browser: ids, contents, links, figures, index."""

import base64
import io
import json
import re
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image

from nsightflow.errors import StageInputError
from nsightflow.i18n import T, language
from nsightflow.report.embed import png_figures
from nsightflow.report.html import to_html, write_page
from nsightflow.report.index import index_page
from nsightflow.report.pdf.build import write_pdf

IDEA = "Each thread sweeps 8 rows of one column, reusing up/centre/down from registers."


def _markdown(lang: str = "en", idea: str = IDEA) -> str:
    """A report's skeleton, its headings written from the catalogue as the builder does."""
    with language(lang):
        return "\n\n".join(
            [
                "# " + T("h_report", title="Stencil"),
                "## " + T("h_brief"),
                "| version | notes |\n|:--|:--|\n"
                f"| `v0_naive` | short |\n| `v1_strip` | {idea} |\n| `v9_gone` | x |",
                "## " + T("h_bound"),
                "## " + T("h_steps"),
                "### " + T("h_step", k=1, variant="v1_strip", idea=idea),
                "| version | t |\n|:--|--:|\n| `v1_strip` | 1 |",
                "Metric[^m1] and [the step in full](#detail-step-v1_strip).",
                "## " + T("h_appendix"),
                "### " + T("h_summary", k=1, n=8192),
                "### " + T("h_baseline_ncu", k=2, variant="v0_naive"),
                "### " + T("h_detail_step", k=3, s=1, variant="v1_strip"),
                "The diff.",
                "### " + T("h_glossary", k=4),
                "[^m1]: `smsp__inst_executed.sum`",
                "## Notes by hand",
                "## Notes by hand",
            ]
        )


def _ids(page: str) -> list[str]:
    """Ids of the headings, and of the appendix's parts (their id moves to the part)."""
    return re.findall(r'<(?:h[1-4]|div class="part-body") id="([^"]+)"', page)


# The ids of the sections of the test report, in order (the title's "report" first).
SECTION_IDS = [
    "brief",
    "bound",
    "steps",
    "step-v1_strip",
    "appendix",
    "summary",
    "baseline-ncu-v0_naive",
    "detail-step-v1_strip",
    "glossary",
    "notes-by-hand",
    "notes-by-hand-2",
]


def test_heading_ids_are_the_catalogue_keys_in_every_language():
    en, zh = to_html(_markdown(), "t"), to_html(_markdown("zh"), "t", language="zh")
    expected = ["report", *SECTION_IDS]
    assert _ids(en) == expected
    assert _ids(zh) == expected  # the index links the same anchors in Chinese
    assert to_html(_markdown(), "t") == en  # and in every run


def test_contents_follow_the_brief_and_list_sections_and_steps_in_order():
    page = to_html(_markdown(), "t")
    nav = page.split('<nav aria-label="Contents" class="toc">', 1)[1].split("</nav>")[0]
    assert re.findall(r'href="#([^"]+)"', nav) == SECTION_IDS
    # the brief first: the contents come between it and the first section
    assert page.index('<h2 id="brief"') < page.index("<nav ")
    assert page.index("<nav ") < page.index('<h2 id="bound"')
    assert '<p class="toc-title">Contents</p>' in page
    assert '<p class="toc-title">目录</p>' in to_html(
        _markdown("zh"), "t", language="zh"
    )


def test_appendix_parts_fold_and_a_link_to_one_targets_its_content():
    page = to_html(_markdown(), "t")
    appendix = page.split('<h2 id="appendix">', 1)[1].split('<h2 id="notes-by-hand"')[0]
    # every part a closed <details>: its heading the summary, its content the target
    assert appendix.count('<details class="part">') == 4
    assert "<details open" not in appendix
    step = appendix.split("<summary><h3>A.3 Step 1: <code>v1_strip</code> in full")[1]
    assert re.match(r'</h3>\s*</summary><div class="part-body" id="detail-step', step)
    assert "<p>The diff.</p>" in step.split("</details>")[0]
    # the body links the part (a browser opens the folded part it lands in)
    assert '<a href="#detail-step-v1_strip">the step in full</a>' in page
    # after the appendix, a heading is a heading again
    assert '<h2 id="notes-by-hand">' in page


def test_a_metric_mark_shows_its_metric_on_hover_and_its_note_in_the_appendix():
    page = to_html(_markdown(), "t")
    mark = re.search(r'<sup id="fnref:m1"><a [^>]*>', page)
    assert mark is not None and 'title="smsp__inst_executed.sum"' in mark.group(0)
    glossary = page.split('id="glossary"', 1)[1]
    assert '<li id="fn:m1">' in glossary and "smsp__inst_executed.sum" in glossary


def test_summary_rows_link_to_the_variant_section_but_not_to_their_own():
    page = to_html(_markdown(), "t")
    assert '<a href="#baseline-ncu-v0_naive"><code>v0_naive</code></a>' in page
    assert page.count('<a href="#step-v1_strip"><code>v1_strip</code></a>') == 1
    assert '<td style="text-align: left;"><code>v9_gone</code></td>' in page  # no link
    step = page.split('id="step-v1_strip"', 1)[1]
    assert '<a href="#step-v1_strip">' not in step  # the step's own table


def test_tables_are_boxed_and_long_cells_clamped_with_the_whole_text():
    page = to_html(_markdown(), "t")
    assert page.count('<div class="table-wrap" tabindex="0"><table>') == 2
    assert page.count("<table>") == 2
    assert f'<span class="clamp" tabindex="0" title="{IDEA}">{IDEA}</span>' in page
    assert page.count('<span class="clamp"') == 1  # "short" is not


def test_manifest_text_stays_text_in_headings_contents_and_tooltips():
    idea = (
        '<img src=x onerror="alert(1)"> & a long idea that runs past sixty characters'
    )
    page = to_html(_markdown(idea=idea), "t")
    assert "<img" not in page
    # as text in the heading, its contents entry and the cell; in two tooltips
    assert page.count("&lt;img src=x onerror=") == 5
    assert page.count("onerror=") == 5


def _png(path: Path, size: tuple[int, int] = (400, 300)) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, (30, 120, 200)).save(path)


SVG = (
    '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" '
    'viewBox="0 0 10 10"><g><title>v1, n = 8192: 3.1 us</title>'
    '<circle cx="5" cy="5" r="1"/></g><text x="1" y="9">size n</text></svg>\n'
)


def test_an_svg_beside_the_png_is_inline_and_the_pdf_prints_the_png(tmp_path):
    _png(tmp_path / "figures/roofline.png")
    (tmp_path / "figures/roofline.svg").write_text(SVG)
    _png(tmp_path / "figures/stalls.png", (300, 200))
    md = "# R\n\n![the roofline](figures/roofline.png)\n\n![stalls](figures/stalls.png)\n"
    page = to_html(md, "R", tmp_path)
    roofline = page.split('<figure id="figure-roofline">', 1)[1].split("</figure>")[0]
    assert roofline.startswith('<div class="svg" data-png="figures/roofline.png"')
    assert "<title>v1, n = 8192: 3.1 us</title>" in roofline and "<?xml" not in page
    stalls = page.split('<figure id="figure-stalls">', 1)[1].split("</figure>")[0]
    assert stalls.startswith('<img alt="stalls" src="data:image/png;base64,')
    printed = png_figures(page)
    assert "<svg" not in printed
    assert '<img alt="the roofline" src="figures/roofline.png" />' in printed
    out = tmp_path / "r.pdf"
    write_pdf(page, tmp_path, out)
    from pypdf import PdfReader

    pdf = PdfReader(out)
    assert "size n" not in pdf.pages[0].extract_text()  # the SVG's text: not printed
    assert len(pdf.pages[0].images) == 2


@pytest.mark.parametrize(
    "bad",
    [
        "<script>alert(1)</script>",
        '<circle onload="alert(1)" r="1"/>',
        '<image href="https://example.org/x.png"/>',
        '<use xlink:href="http://example.org/s.svg#m"/>',
    ],
)
def test_an_svg_that_acts_or_loads_is_refused_naming_the_file(tmp_path, bad):
    _png(tmp_path / "figures/roofline.png")
    (tmp_path / "figures/roofline.svg").write_text(
        SVG.replace("</svg>", bad + "</svg>")
    )
    with pytest.raises(
        StageInputError, match=r"roofline\.svg: holds .*re-run the plot"
    ):
        to_html("![r](figures/roofline.png)\n", "R", tmp_path)


def _context(replay: dict | None, timing: dict, statuses: list[str]) -> dict:
    return {
        "family": {"name": "stencil", "title": "Stencil <2D>"},
        "variants": [{"name": f"v{i}_x", "status": s} for i, s in enumerate(statuses)],
        "provenance": {"timing": timing},
        "replay": replay,
    }


def test_report_json_says_measured_or_replayed_and_counts_statuses(tmp_path):
    _png(tmp_path / "figures/perf_vs_size.png")
    md = _markdown() + "\n\n![time](figures/perf_vs_size.png)\n"
    replay = {"source": "examples/h200", "gpu": "NVIDIA H200", "date": "2026-11-30"}
    ctx = _context(replay, {}, ["ok", "wrong", "ok", "crashed"])
    write_page(md, ctx, tmp_path, "en")
    facts = json.loads((tmp_path / "report.json").read_text())
    assert facts["data"] == "replayed" and facts["recording"] == "examples/h200"
    assert facts["gpu"] == "NVIDIA H200" and facts["date"] == "2026-11-30"
    assert facts["statuses"] == {"crashed": 1, "ok": 2, "wrong": 1}
    assert facts["sections"][0] == {"id": "brief", "title": "Brief"}
    assert facts["main_figure"] == "figures/perf_vs_size.png"
    assert (tmp_path / "report.html").read_text().count('id="figure-perf_vs_size"') == 1
    timing = {"gpu": "NVIDIA H200", "date": "2026-11-30T02:00:02+00:00"}
    write_page(md, _context(replay, timing, ["ok"]), tmp_path, "en")
    facts = json.loads((tmp_path / "report.json").read_text())
    # the family's own run's date, not the recording's first
    assert (facts["data"], facts["date"]) == ("replayed", "2026-11-30T02:00:02+00:00")
    timing = {"gpu": "NVIDIA A100", "date": "2026-01-02T03:04:05+00:00"}
    write_page(md, _context(None, timing, ["ok"]), tmp_path, "en")
    facts = json.loads((tmp_path / "report.json").read_text())
    assert (facts["data"], facts["gpu"], facts["recording"]) == (
        "measured",
        "NVIDIA A100",
        None,
    )
    write_page(md, _context(None, {}, ["ok"]), tmp_path, "en")
    assert json.loads((tmp_path / "report.json").read_text())["data"] == "not_measured"


def test_index_cards_show_origin_figure_statuses_sections_and_files(tmp_path):
    folder = tmp_path / "stencil"
    _png(folder / "figures/perf_vs_size.png", (1600, 900))
    md = _markdown() + "\n\n![time](figures/perf_vs_size.png)\n"
    replay = {
        "source": "examples/h200",
        "gpu": "NVIDIA H200",
        "date": "2026-11-30T01:55:20+00:00",
    }
    write_page(md, _context(replay, {}, ["ok", "wrong"]), folder, "en")
    page = index_page(
        "# nsightflow reports\n\n| a |\n|---|\n| row |\n\nClosing line.\n",
        tmp_path,
        ["stencil", "gone"],
    )
    assert "<table" not in page and "Closing line." in page  # the table is the cards
    card = page.split('<section class="family">')[1]
    assert '<a href="stencil/report.html">Stencil &lt;2D&gt;</a>' in card
    assert (
        "Replayed from examples/h200: measured on NVIDIA H200 on 2026-11-30 01:55 UTC."
        in card
    )
    assert 'Variants: 1 ok, <span class="bad">1 wrong</span>.' in card
    assert '<a href="stencil/report.html#steps">2. Optimization steps</a>' in card
    assert (
        '<a href="stencil/report.html#figure-perf_vs_size"><img class="figure"' in card
    )
    shown = re.search(r'src="data:image/png;base64,([^"]+)"', card)
    assert shown is not None
    with Image.open(io.BytesIO(base64.b64decode(shown.group(1)))) as image:
        assert image.size == (1400, 788)  # the card's width, sharp, not the 1600 px
    assert "No variant computed the right result" in card  # no findings.csv here
    for name in ("report.html", "report.md", "report.pdf", "summary.csv"):
        assert f'<a href="stencil/{name}">{name}</a>' in card
    missing = page.split('<section class="family">')[2]
    assert "gone/report.json is missing: re-run this family&#x27;s report" in missing
    (folder / "report.json").write_text("{not json")
    with pytest.raises(StageInputError, match=r"stencil/report\.json: not valid JSON"):
        index_page("# i\n", tmp_path, ["stencil"])


def test_index_card_leads_with_each_inputs_headline_numbers(tmp_path):
    folder = tmp_path / "report" / "stencil"
    folder.mkdir(parents=True)
    write_page(
        _markdown(), _context(None, {"gpu": "G", "date": "d"}, ["ok"]), folder, "en"
    )
    findings = tmp_path / "analysis" / "stencil" / "findings.csv"
    findings.parent.mkdir(parents=True)
    heads = [
        {
            "variant": "v5_strip<vec4>",
            "n": 16777216,
            "time": 2834.6,
            "speedup": 8.0704,
            "baseline": "v0_naive",
            "pct": 94.89,
            "ceiling": {"@": "ceiling_vendor_sgemm"},
            "regime": {"@": "regime_compute"},
            "input": {"@": "input_named", "label": "kind=skewed"},
        }
    ]
    pd.DataFrame(
        {
            "section": ["headline", "step"],
            "params": [json.dumps(heads[0]), "{}"],
        }
    ).to_csv(findings, index=False)
    page = index_page("# i\n", tmp_path / "report", ["stencil"])
    result = page.split('<dl class="result">')[1].split("</dl>")[0]
    cells = re.findall(r"<dd>(.*?)</dd>", result)
    assert [re.sub(r"<[^>]+>", " ", c).split() for c in cells] == [
        ["v5_strip&lt;vec4&gt;", "input", "kind=skewed"],
        ["2,835", "us", "n", "=", "2^24"],
        ["8.07x", "over", "v0_naive"],
        ["95%", "of", "cuBLAS", "SGEMM,", "compute-bound"],
    ]
