import base64
import math
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image
from pypdf import PdfReader

from nsightflow.errors import NsightflowError, StageInputError
from nsightflow.report.html import to_html
from nsightflow.report.pdf import build as pdf
from nsightflow.report.pdf import tables

A4 = (595.28, 841.89)  # points

# The shape of the Jacobi report's widest tables: twelve columns with a long
# free-text one, and a provenance table of paths that have no spaces.
SUMMARY = """\
| version | status | time n=2048 [us] | time n=8192 [us] | speedup vs v0_naive | vs previous step | GB/s | % of copy BW | DRAM GB/s (ncu) | smem throughput % | rank | notes |
|:--|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|:--|
| `v0_naive` | ok | 14.59 | 237.89 | 1.00 | | 2,256.82 | 53.12 | 2,226.98 | 6.95 | 2 | One thread per point; five global loads per point, re-reads served by L1/L2. |
| `v2_coarsen2` | ok | 11.30 | 178.10 | 1.34 | 1.34 | 3,014.50 | 70.95 | 2,907.64 | 4.66 | 1 | Each thread updates two vertically adjacent points and reuses both centres. |
"""
PATHS = """\
| variant | compile | verify | timing | ncu reports |
|:--|:--|:--|:--|:--|
| `v0_naive` | results/build/jacobi2d/v0_naive.resources.json | results/verify/jacobi2d/v0_naive.json (replayed from examples/h200/verify/jacobi2d/v0_naive.json) | results/time/jacobi2d/v0_naive.json | results/profile/jacobi2d/v0_naive/n2048.ncu-rep |
"""
CODE = """\
```cuda
extern "C" __global__ void jacobi2d_v0(const float* __restrict__ A, float* __restrict__ B, int n) {
    B[idx] = 0.2f * (A[idx] + A[idx - 1] + A[idx + 1] + A[idx - n] + A[idx + n]) + tile[ty + 1][tx + 1] * 0.0f;
}
```
"""


def _png(path: Path, width: float = 6.0, height: float = 3.0) -> Path:
    """A line plot saved with matplotlib's object API, as the plot stage saves."""
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    ax.plot([512, 1024, 2048, 4096], [4.7, 6.6, 14.6, 63.1], marker="o")
    ax.set_xlabel("problem size n")
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=150)
    return path


def _report_markdown(rows: int = 150) -> str:
    sizes = "\n".join(
        f"| {512 * (i + 1)} | {4.7 + i:.2f} | {4.2 + i:.2f} | {4.1 + i:.2f} |"
        for i in range(rows)
    )
    return f"""# Jacobi-2D 5-point stencil: optimization report

> **Replayed, not measured here.** These numbers were recorded on NVIDIA H200.

## Summary (speedups and bandwidth at n = 8192)

{SUMMARY}
## 1. Baseline measurement over sizes

![time and bandwidth over sizes](figures/perf_vs_size.png)

| size | v0_naive | v1_smem | v2_coarsen2 |
|---:|---:|---:|---:|
{sizes}

## 2. Optimization steps

### 2.1 `v1_smem`: shared-memory tile

{CODE}
- Stall **long_scoreboard** fell from 16.51 to 8.95 cycles per issued instruction
  (`smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio`).

## Provenance

{PATHS}"""


def _text(path: Path) -> str:
    return "\n".join(page.extract_text() for page in PdfReader(path).pages)


def _squeezed(text: str) -> str:
    """Text without whitespace: a wrapped cell reads the same as an unwrapped one."""
    return re.sub(r"\s+", "", text)


def _text_ends(path: Path) -> list[tuple[float, str]]:
    """Where every run of text ends on its page (x in points), and its text.

    Widths come from the metrics of the DejaVu files the PDF embeds (the same
    files pdf.py measures tables with).
    """
    meter = pdf._Meter(pdf._dejavu_dir())
    ends: list[tuple[float, str]] = []

    def visit(text: str, cm: list[float], tm: list[float], font, size) -> None:
        name = str(font.get("/BaseFont", "")) if font else ""
        if not text.strip() or not size:
            return
        face = "mono" if "Mono" in name else "bold" if "Bold" in name else "regular"
        scale = tm[0] * cm[0]
        start = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        ends.append((start + meter.em(text.rstrip(), face) * size * scale, text))

    for page in PdfReader(path).pages:
        page.extract_text(visitor_text=visit)
    return ends


@pytest.fixture
def report_dir(tmp_path: Path) -> Path:
    out = tmp_path / "report" / "jacobi2d"
    _png(out / "figures" / "perf_vs_size.png", 9, 3.6)
    return out


def test_report_page_becomes_a_multipage_a4_pdf_with_text_and_figure(report_dir):
    html = to_html(_report_markdown(), "Jacobi-2D 5-point stencil")
    out = report_dir / "report.pdf"
    pdf.write_pdf(html, report_dir, out)

    assert out.read_bytes().startswith(b"%PDF-")
    reader = PdfReader(out)
    assert len(reader.pages) > 1
    for page in reader.pages:
        assert float(page.mediabox.width) == pytest.approx(A4[0], abs=1)
        assert float(page.mediabox.height) == pytest.approx(A4[1], abs=1)
    text = _text(out)
    assert "Jacobi-2D 5-point stencil: optimization report" in text  # h1
    assert "1. Baseline measurement over sizes" in text  # h2
    assert "Replayed, not measured here." in text  # block quote
    assert "2,256.82" in text and "3,014.50" in text  # table cells
    assert "14.59" in text and "v2_coarsen2" in text
    assert "jacobi2d_v0" in _squeezed(text)  # code block
    assert "page 1" in text  # running footer
    assert f"page {len(reader.pages)}" in reader.pages[-1].extract_text()
    assert sum(len(page.images) for page in reader.pages) == 1
    assert [p.name for p in report_dir.iterdir() if p.name.endswith(".partial")] == []


def test_wide_tables_and_long_code_lines_stay_on_the_page(report_dir):
    html = to_html(_report_markdown(rows=3), "wide")
    out = report_dir / "report.pdf"
    pdf.write_pdf(html, report_dir, out)

    text = _squeezed(_text(out))
    for cell in (
        "Eachthreadupdatestwoverticallyadjacentpointsandreusesbothcentres.",
        "results/verify/jacobi2d/v0_naive.json(replayedfrom",
        "results/profile/jacobi2d/v0_naive/n2048.ncu-rep",
        "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
        "A[idx+n])+tile[ty+1][tx+1]*0.0f;",
    ):
        assert cell in text
    ends = _text_ends(out)
    assert len(ends) > 20
    right_margin = A4[0] - pdf.MARGIN_MM * pdf.MM
    overflowing = [(round(x), t) for x, t in ends if x > right_margin + 1]
    assert overflowing == []  # nothing runs into the margin or off the page


def test_table_columns_fill_the_text_width_and_wide_tables_split():
    meter = pdf._Meter(pdf._dejavu_dir())
    narrow = [[("th", "size"), ("th", "v0_naive")], [("td", "512"), ("td", "4.70")]]
    font, widths = tables.table_layout(narrow, meter)
    assert font == tables.TABLE_FONT_PT
    assert sum(widths) == pytest.approx(tables.TEXT_WIDTH_PT)
    assert tables.column_groups(narrow, meter) == [[0, 1]]

    crowded = [
        [("td", f"`v{r}`")]
        + [("td", f"{1234567.891 * (i + 1):,.3f}") for i in range(15)]
        for r in range(3)
    ]
    groups = tables.column_groups(crowded, meter)
    assert len(groups) > 1 and all(group[0] == 0 for group in groups)
    assert sorted({c for g in groups for c in g}) == list(range(16))
    for group in groups:  # each part fits the page at the table font: no shrinking
        part = [[row[c] for c in group] for row in crowded]
        font, _ = tables.table_layout(part, meter)
        assert font == tables.TABLE_FONT_PT
    html = tables.split_wide_tables(
        "<table>"
        + "".join(
            "<tr>" + "".join(f"<td>{t}</td>" for _, t in row) + "</tr>"
            for row in crowded
        )
        + "</table>",
        meter,
    )
    assert html.count("<table>") == len(groups)
    assert html.count("<td>`v1`</td>") == len(groups)  # the row's name leads each part


def _font_sizes(path: Path) -> list[float]:
    """The size every run of text is drawn at, in points (font size x text matrix)."""
    sizes: list[float] = []

    def visit(text: str, cm: list[float], tm: list[float], font, size) -> None:
        if text.strip() and size:
            sizes.append(size * math.hypot(tm[0], tm[1]) * math.hypot(cm[0], cm[1]))

    for page in PdfReader(path).pages:
        page.extract_text(visitor_text=visit)
    return sizes


def _ink_bottoms(path: Path, tmp_path: Path) -> list[float]:
    """Per page, how far down the text area the last ink reaches (0..1)."""
    subprocess.run(
        ["pdftoppm", "-gray", "-r", "30", str(path), str(tmp_path / "page")],
        check=True,
    )
    bottoms = []
    top_mm, bottom_mm = 14.0, 297.0 - 18.0  # the text area of PRINT_STYLE's @page
    for png in sorted(tmp_path.glob("page-*.pgm")):
        with Image.open(png) as image:
            pixels = image.load()
            width, height = image.size
            last = 0
            for y in range(int(height * bottom_mm / 297.0)):
                if any(pixels[x, y] < 200 for x in range(0, width, 2)):
                    last = y
        bottoms.append((last / height * 297.0 - top_mm) / (bottom_mm - top_mm))
    return bottoms


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs poppler-utils")
def test_no_text_under_8_pt_and_no_mostly_blank_page(report_dir, tmp_path):
    """The seed issue: page 1 three-quarters blank (the summary table jumped to
    page 2 with its heading) and a 14-column summary set in a 5 pt font."""
    wide = SUMMARY.replace("| notes |", "| GFLOP/s | % of FP32 | notes |")
    wide = (
        wide.replace("|:--|\n", "|--:|--:|:--|\n")
        .replace(" | One", " | 1.0 | 2.0 | One")
        .replace(" | Each", " | 1.0 | 2.0 | Each")
    )
    markdown = _report_markdown().replace(SUMMARY, wide)
    out = report_dir / "report.pdf"
    pdf.write_pdf(to_html(markdown, "wide summary"), report_dir, out)

    sizes = _font_sizes(out)
    assert sizes and min(sizes) >= tables.MIN_FONT_PT - 0.01
    bottoms = _ink_bottoms(out, tmp_path)
    assert len(bottoms) > 2
    assert min(bottoms[:-1]) > 0.6, bottoms  # every page but the last is mostly full


def test_chinese_text_renders_and_extracts(report_dir):
    markdown = (
        "# 雅可比二维模板\uff1a优化报告\n\n"
        + "基线测量\uff1a中位数内核时间 178.10 us\uff0c带宽 3,015 GB/s。" * 20
        + "\n\n| 版本 | 说明 |\n|:--|:--|\n| `v1_smem` | 共享内存分块\uff0c边缘线程加载光环。 |\n"
    )
    out = report_dir / "report.pdf"
    pdf.write_pdf(to_html(markdown, "雅可比"), report_dir, out)

    text = _text(out)
    assert "雅可比二维模板" in text
    assert "共享内存分块" in _squeezed(text)


def test_figures_embedded_as_data_uris_are_sized_like_files(tmp_path):
    png = _png(tmp_path / "tall.png", 3, 9)
    data = base64.b64encode(png.read_bytes()).decode()
    html = f'<html><body><h1>Embedded</h1><img alt="a" src="data:image/png;base64,{data}" /></body></html>'
    page, folders = pdf._local_figures(html, tmp_path)
    assert folders == []
    height = float(re.search(r"height: ([\d.]+)pt", page).group(1))
    assert height == pytest.approx(pdf.MAX_FIGURE_HEIGHT_PT, abs=0.1)

    out = tmp_path / "embedded.pdf"
    pdf.write_pdf(html, tmp_path, out)
    assert sum(len(page.images) for page in PdfReader(out).pages) == 1


def test_base_fonts_are_used_where_matplotlib_fonts_are_missing(
    report_dir, monkeypatch
):
    monkeypatch.setattr(pdf, "_dejavu_dir", lambda: None)
    out = report_dir / "report.pdf"
    pdf.write_pdf(to_html(_report_markdown(rows=3), "base fonts"), report_dir, out)
    assert "2,256.82" in _text(out)


@pytest.mark.parametrize(
    ("src", "message"),
    [
        ("figures/missing.png", "missing"),
        ("https://example.org/roofline.png", "not a file of the report's folder"),
        ("file:///etc/hostname", "not a file of the report's folder"),
        ("/etc/hostname", "outside the report's folder"),
        ("figures/../../hostname.png", "outside the report's folder"),
        ("figures/out.png", "outside the report's folder"),
        ("figures/broken.png", "cannot be read as an image"),
    ],
)
def test_a_figure_that_cannot_be_printed_is_a_clear_error(tmp_path, src, message):
    (tmp_path / "figures").mkdir()
    (tmp_path / "figures" / "broken.png").write_bytes(b"not a png")
    (tmp_path / "figures" / "out.png").symlink_to("/etc/hostname")
    # the page as the HTML stage would never write it (it refuses such a figure)
    html = to_html("# Report\n\n![figure](figures/x.png)\n", "Report")
    html = html.replace("figures/x.png", src)
    out = tmp_path / "report.pdf"
    with pytest.raises(StageInputError, match=message) as error:
        pdf.write_pdf(html, tmp_path, out)
    assert "PDF report" in str(error.value)
    assert not out.exists()


def test_a_failed_render_leaves_no_pdf_and_names_the_output(tmp_path, monkeypatch):
    from xhtml2pdf import pisa

    def fail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("layout exploded")

    monkeypatch.setattr(pisa, "CreatePDF", fail)
    out = tmp_path / "report.pdf"
    with pytest.raises(NsightflowError, match="layout exploded") as error:
        pdf.write_pdf(to_html("# Report\n", "Report"), tmp_path, out)
    assert str(out) in str(error.value)
    assert list(tmp_path.iterdir()) == []


# The summary of SGEMM: a key column of long names beside a column of long notes,
# which once set `v2_tiled_transposed` over two lines (`v2_tiled_transpo`, `sed`).
NAMES = ("v2_tiled_transposed", "v7_double_buffer", "v5_regblock2d")
NOTE = "slower than the step before it: kept, see its section; " * 4


def _names_table(columns: int) -> str:
    header = "| variant | regime | " + " | ".join(f"m{i}" for i in range(columns))
    rule = "|:--|:--|" + "--:|" * columns + ":--|"
    rows = [
        f"| `{name}` | latency-bound | "
        + " | ".join("1,711.08" for _ in range(columns))
        for name in NAMES
    ]
    return "\n".join([header + " | notes |", rule, *(f"{r} | {NOTE} |" for r in rows)])


@pytest.mark.parametrize("columns", [2, 12])
def test_a_table_never_breaks_an_identifier_inside_and_repeats_its_key(
    report_dir, columns
):
    html = to_html(f"# Names\n\n{_names_table(columns)}\n", "names")
    meter = pdf._Meter(pdf._dejavu_dir())
    parts = tables.split_wide_tables(html, meter).count("<table>")
    assert (parts > 1) == (columns > 2)  # too wide side by side: split by columns
    out = report_dir / "names.pdf"
    pdf.write_pdf(html, report_dir, out)
    text = subprocess.run(
        ["pdftotext", "-layout", str(out), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    words = re.findall(r"v\d\w*", text)
    assert set(words) == set(NAMES), sorted(set(words) - set(NAMES))
    assert words.count("v2_tiled_transposed") == parts  # the key leads every part


def _outline_pages(reader: PdfReader) -> dict[str, int]:
    """The page (from 1) each heading of the PDF's outline starts on, by title."""
    pages: dict[str, int] = {}
    stack = list(reader.outline)
    while stack:
        item = stack.pop(0)
        if isinstance(item, list):
            stack = item + stack
        else:
            pages[" ".join(str(item.title).split())] = (
                reader.get_destination_page_number(item) + 1
            )
    return pages


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler-utils")
def test_the_contents_number_each_section_from_one_layout_pass(report_dir, monkeypatch):
    """xhtml2pdf's own contents laid every report out three times for its numbers."""
    from reportlab.platypus.doctemplate import BaseDocTemplate

    passes = []
    build = BaseDocTemplate.build

    def counted(self, *args, **kwargs):
        passes.append(1)
        return build(self, *args, **kwargs)

    monkeypatch.setattr(BaseDocTemplate, "build", counted)
    out = report_dir / "report.pdf"
    pdf.write_pdf(to_html(_report_markdown(), "Jacobi-2D"), report_dir, out)

    assert len(passes) == 1
    reader = PdfReader(out)
    outline = _outline_pages(reader)
    assert (
        outline["2. Optimization steps"]
        > outline["Summary (speedups and bandwidth at n = 8192)"]
    )
    text = subprocess.run(
        ["pdftotext", "-layout", "-l", "1", str(out), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    entries = {
        " ".join(title.split()): int(page)
        for title, page in re.findall(r"^\s*(\S.*?\S)\s{3,}(\d+)$", text, re.M)
        if " ".join(title.split()) in outline
    }
    assert entries == outline  # every section, on the line of its title
    links = [a.get_object() for a in reader.pages[0].get("/Annots") or []]
    assert len([a for a in links if a.get("/Dest")]) >= len(outline)  # they link


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="needs poppler-utils")
def test_a_code_block_longer_than_the_room_left_splits_there(report_dir, tmp_path):
    """Jacobi-2D's step diffs moved whole to the next page, leaving 62-76% blank."""
    lines = "\n".join(f"+    acc += a[{i}] * b[{i}];  // line {i}" for i in range(60))
    words = " ".join(f"word{i}" for i in range(90))
    markdown = "# Report\n\n" + f"{words}\n\n" * 6 + f"```diff\n{lines}\n```\n\nafter\n"
    out = report_dir / "report.pdf"
    pdf.write_pdf(to_html(markdown, "code"), report_dir, out)

    bottoms = _ink_bottoms(out, tmp_path)
    assert len(bottoms) == 2
    assert bottoms[0] > 0.9, bottoms  # the block starts on page 1, under the text
