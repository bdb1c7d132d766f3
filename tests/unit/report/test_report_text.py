"""Text from manifests and kernel sources is data, never markup,
in report.md, report.html and report.pdf alike."""

import base64
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from PIL import Image
from pypdf import PdfReader

from nsightflow.diagnosis.build import family_findings
from nsightflow.report.html import to_html
from nsightflow.report.pdf.build import write_pdf
from nsightflow.report.sections.family import ReportBuilder
from nsightflow.report.text import code_block, inline, links_as_text, plain
from recorded import analyze as _analyze


def _html(markdown_text: str) -> str:
    return to_html(markdown_text, "t").split("<body>")[1]


@pytest.mark.parametrize(
    "text",
    [
        "[click me](javascript:alert(document.cookie))",
        "[click me](JaVaScRiPt:alert(1))",
        "[click me](data:text/html;base64,PHNjcmlwdD4=)",
        "[click me](file:///etc/passwd)",
        "[click me][1]\n\n[1]: javascript:alert(1)",
        "<a href='javascript:alert(1)'>click me</a>",
    ],
)
def test_a_link_that_is_not_http_is_text(text):
    html = _html(inline(text))
    assert "click me" in html
    assert not re.search(r"<a\b", html)
    assert not re.search(r"<[^>]*javascript", html, re.I)  # text at most


@pytest.mark.parametrize(
    "text", ["![f](../../../../x.png)", "![f](http://127.0.0.1:9/t.png)"]
)
def test_an_image_is_its_alt_text(text):
    out = inline(text)
    assert out == "f"
    assert "<img" not in _html(out)


def test_web_links_and_inline_formatting_survive():
    html = _html(inline("*one* **two** `x | y` [docs](https://example.org/a_b(c))"))
    assert "<em>one</em>" in html and "<strong>two</strong>" in html
    assert "<code>x | y</code>" in html
    assert '<a href="https://example.org/a_b%28c%29">docs</a>' in html


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
        # block structure is not inline formatting: its text stays, the block goes
        ("- not a list", "not a list"),
        ("1. not a list", "not a list"),
        ("# not a heading #", "not a heading"),
        ("> not a quote", "not a quote"),
        ("a - b, 2. c, d # e", "a - b, 2. c, d # e"),
        ("``` not a fence", "``` not a fence"),
        ("a | b", "a | b"),
        ("R&amp;D &lt;b&gt;", "R&amp;D &lt;b&gt;"),
    ],
)
def test_markup_characters_read_as_themselves(text, shown):
    html = _html(f"| a |\n|---|\n| {inline(text)} |\n\n### 3.1 {inline(text)}")
    cell = re.search(r"<td[^>]*>(.*?)</td>", html, re.S).group(1)
    heading = re.search(r"<h3[^>]*>(.*?)</h3>", html, re.S).group(1)
    assert cell == shown
    assert heading == f"3.1 {shown}"


def test_plain_text_is_literal_even_where_markdown_would_apply():
    text = "error: `x` *y* [z](http://e.org) ![i](a.png) <b> | 1. # _w_"
    html = _html(plain(text))
    assert (
        "<p>error: `x` *y* [z](http://e.org) ![i](a.png) &lt;b&gt; | 1. # _w_</p>"
        in html
    )
    assert "<a" not in html and "<img" not in html and "<em>" not in html


def test_a_source_cannot_close_its_code_block():
    source = "// ```\n```\n![s](../../secret.png)\n````\n[x](javascript:1)\nint main;"
    html = _html(code_block(source, "cuda"))
    assert html.count("<pre>") == 1 and "<img" not in html and "<a" not in html
    assert "![s](../../secret.png)" in html and "int main;" in html


def test_links_print_as_text_and_address():
    page = '<p>see <a href="https://e.org/x">the docs</a>, <a href="https://e.org">https://e.org</a></p>'
    assert links_as_text(page) == (
        "<p>see the docs (https://e.org/x), https://e.org</p>"
    )


def _png(path: Path, color: str = "red") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", (8, 8), color).save(path)


def test_hostile_manifest_and_source_render_inert_in_md_html_and_pdf(
    recording, tmp_path
):
    """The issue's cases end to end: a live javascript link, a file from outside the
    repository embedded, a remote image that broke the PDF, a fence broken out of."""
    analysis = _analyze(recording, "faulty", tmp_path)
    ctx = json.loads((analysis / "context.json").read_text())
    secret = tmp_path / "secret.png"
    _png(secret, "blue")
    hostile = tmp_path / "v0_naive.cu"
    hostile.write_text(
        "// idea\n```\n![s](../../secret.png)\n```\n__global__ void k() {}\n"
    )
    ctx["family"]["title"] = "Faulty [click me](javascript:alert(document.cookie))"
    ctx["family"]["description"] = (
        "See ![f](../../secret.png) and ![r](http://127.0.0.1:9/t.png); "
        "[docs](https://example.org/docs).\n\n- second paragraph"
    )
    for v in ctx["variants"]:
        v["idea"] = (
            "![f](../../secret.png) | <img src=x onerror=alert(1)> [x](javascript:1)"
        )
        if v["name"] == "v0_naive":
            v["source"] = str(hostile)
    frame = pd.read_csv(analysis / "analysis.csv")
    stalls = pd.read_csv(analysis / "stalls.csv")
    found = family_findings(frame, stalls, pd.DataFrame(), ctx)  # of the hostile ctx
    md = ReportBuilder(frame, stalls, pd.DataFrame(), ctx, findings=found).build()
    report = tmp_path / "report" / "faulty"
    for name in set(re.findall(r"\]\(figures/([\w/]+\.png)\)", md)):
        _png(report / "figures" / name)
    page = to_html(md, ctx["family"]["title"], base_dir=report)
    secret_b64 = base64.b64encode(secret.read_bytes()).decode()
    assert secret_b64 not in page
    body = page.split("<body>")[1]
    assert "javascript" not in body.lower() and "127.0.0.1" not in body
    assert not re.search(r"<[^>]*(javascript|127\.0\.0\.1)", page, re.I)
    assert "onerror" not in page or "&lt;img src=x onerror" in page
    assert '<a href="https://example.org/docs">docs</a>' in page
    # the source's own fence stayed inside the code block
    assert "![s](../../secret.png)" in page
    assert not re.search(r"<img[^>]*secret", page)
    # every row of the summary table kept its cells (the idea's | is text)
    lines = md.splitlines()
    header = next(ln for ln in lines if ln.startswith("| version"))
    rows = lines[lines.index(header) + 2 : lines.index(header) + 8]
    assert len(rows) == 6 and "f \\| &lt;img src=x onerror" in rows[0]
    assert {r.count(" | ") for r in rows} == {header.count(" | ")}
    out = report / "report.pdf"
    write_pdf(page, report, out)
    text = " ".join(p.extract_text() for p in PdfReader(out).pages)
    assert "docs (https://example.org/docs)" in " ".join(text.split())
    shutil.rmtree(report)


def test_a_hot_source_line_cannot_close_its_code_span():
    from nsightflow.report.sections.hotspots import code_cell

    cell = code_cell("x = 1; // `` ![s](../../secret.png) ``` [a](javascript:1)", 7)
    html = _html(f"| code |\n|---|\n| {cell} |")
    assert "<img" not in html and "<a" not in html
    assert "![s](../../secret.png)" in html
