# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""The recorded H200 timeline (CUPTI): the record -> table conversion, the analysis,
the figure and the report section in English and Chinese, HTML and PDF."""

import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from pypdf import PdfReader

from nsightflow.analysis.timeline import write_analysis
from nsightflow.family.registry import load_family
from nsightflow.gpu.timeline.driver import table_of, tidy
from nsightflow.plot.figures import write_figures
from nsightflow.plot.names import FIGURES
from nsightflow.plot.timeline import write_figure
from nsightflow.report.build import write_report
from nsightflow.report.paths import report_stem
from nsightflow.report.pdf.build import write_pdf
from recorded import analyze as _analyze

FIXTURES = Path(__file__).resolve().parents[2] / "data/timeline/h200"
SEQUENCES = {  # the copies each family's sequence makes, in order
    "jacobi2d": ["memcpy_htod", "memset", "kernel", "memcpy_dtoh"],
    "sgemm": ["memcpy_htod", "memcpy_htod", "memset", "kernel", "memcpy_dtoh"],
}


def _records(recording, family):
    paths = sorted(recording.glob(f"timeline/{family}/*.json"))
    assert paths, f"no recorded timeline of {family} in {recording}"
    return paths


@pytest.mark.parametrize(
    "path",
    sorted(FIXTURES.glob("*.json")),
    ids=lambda p: p.stem,
)
def test_recorded_cupti_records_become_the_recorded_table(path):
    record = json.loads(path.read_text())
    family = record["family"]
    kernels = load_family(FIXTURES.parents[3] / "kernels" / family)
    assert record["backend"] == "cupti" and record["status"] == "ok", path
    table = table_of(record)
    stored = pd.read_csv(path.with_suffix(".csv"))
    pd.testing.assert_frame_equal(
        table.astype({"bytes": "float64"}), stored, check_dtype=False
    )
    for size, rows in table.groupby("size"):
        assert list(rows["kind"]) == SEQUENCES[family], (path, size)
        copies = rows[rows["kind"] != "kernel"]
        assert set(copies["bytes"]) == {4 * int(size) ** 2}
        kernel = rows[rows["kind"] == "kernel"]["name"].item()
        assert kernel == kernels.variants[record["variant"]].kernel
        assert rows["start_ns"].iloc[0] == 0
        assert (rows["end_ns"] > rows["start_ns"]).all()
        htod = rows[rows["kind"] == "memcpy_htod"]
        assert set(htod["name"]) == {"memcpy HtoD (pageable -> device)"}


@pytest.mark.parametrize("family", ["jacobi2d", "sgemm"])
def test_traced_kernels_take_what_the_events_timed(recording, family):
    """CUPTI's kernel duration against the CUDA-event median of the timing stage
    (another run, another method): within 35% at the largest size."""
    for path in _records(recording, family):
        record = json.loads(path.read_text())
        table = table_of(record)
        n = int(table["size"].max())
        rows = table[(table["size"] == n) & (table["kind"] == "kernel")]
        traced_us = float((rows["end_ns"] - rows["start_ns"]).sum()) / 1e3
        timing = json.loads(
            (recording / f"time/{family}/{record['variant']}.json").read_text()
        )
        event_us = next(r["time_median_us"] for r in timing["rows"] if r["size"] == n)
        assert traced_us == pytest.approx(event_us, rel=0.35), record["variant"]


@pytest.fixture(scope="module")
def built(recording, tmp_path_factory):
    """The jacobi2d analysis, figures and timeline files from the recording."""
    work = tmp_path_factory.mktemp("timeline")
    analysis = _analyze(recording, "jacobi2d", work)
    records = _records(recording, "jacobi2d")
    write_analysis(records, [p.with_suffix(".csv") for p in records], analysis)
    figures = work / "figures"
    write_figures(analysis, figures)
    write_figure(analysis, figures / "timeline.png", "jacobi2d")
    return analysis, figures


@pytest.mark.parametrize(
    ("language", "heading"),
    [("en", "Timeline: copies and kernel"), ("zh", "时间线：数据拷贝与 kernel")],
)
def test_report_has_the_timeline_figure_table_and_finding(
    built, tmp_path, language, heading
):
    analysis, drawn = built
    out = tmp_path / "report"
    figures = out / "figures"  # beside the report, as the report stage has them
    shutil.copytree(drawn, figures)
    summary = analysis / "timeline_summary.csv"
    write_report(analysis, figures, out, language=language, timeline=summary)
    stem = report_stem(language)
    md = (out / f"{stem}.md").read_text()
    section = md.split(heading, 1)[1].split("\n### A.", 1)[0]
    assert "timeline.png)" in section
    frame = pd.read_csv(summary)
    big = frame[(frame["status"] == "ok") & (frame["size"] == 8192)]
    assert len(big) == 6
    ratio = big["transfer_to_kernel"]
    assert (ratio > 10).all()  # 256 MiB each way against a sub-millisecond kernel
    if language == "en":
        assert "transfers dominate every variant" in section
        assert f"{ratio.min():,.0f}-{ratio.max():,.0f}x the kernel time" in section
        assert re.search(r"\| `v4_vec4` +\| 8192 \|", section)
        assert "reuse the host buffer or pin it." in section
    html = (out / f"{stem}.html").read_text()
    steps = len(list((figures / "steps").glob("step_*.png")))
    assert steps == 5  # Jacobi-2D: v1..v5
    # the family figures, one per step, the timeline and the energy figure (the
    # recording's time records hold energy per launch)
    assert (figures / "energy.png").is_file()
    figures = html.count('<div class="svg"') + len(
        re.findall(r'<img [^>]*src="data:image/png;base64,', html)
    )
    assert figures == len(FIGURES) + steps + 2  # each once, SVG inline or PNG
    write_pdf(html, out, out / "report.pdf")
    text = "".join(p.extract_text() for p in PdfReader(out / "report.pdf").pages)
    if language == "en":
        assert "Timeline: copies and kernel" in text


def test_without_a_timeline_there_is_no_section(built, tmp_path):
    analysis, figures = built
    write_report(analysis, figures, tmp_path)
    assert "Timeline" not in (tmp_path / "report.md").read_text()


def test_failed_traces_are_listed_and_escaped(built, tmp_path):
    analysis, figures = built
    summary = pd.read_csv(analysis / "timeline_summary.csv")
    bad = summary.iloc[[0]].assign(
        variant="v9_bad", status="crashed", message="<script>alert(1)</script>"
    )
    path = tmp_path / "summary.csv"
    pd.concat([summary, bad]).to_csv(path, index=False)
    write_report(analysis, figures, tmp_path / "r", timeline=path)
    md = (tmp_path / "r/report.md").read_text()
    assert re.search(r"\| `v9_bad` +\| crashed +\|", md)
    html = (tmp_path / "r/report.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;alert(1)" in html


def _activity(kind, start, end):
    return {"kind": kind, "name": kind, "start_ns": start, "end_ns": end,
            "bytes": None if kind == "kernel" else 4, "stream": 7}  # fmt: skip


def test_a_python_launcher_s_warm_up_call_is_not_the_sequence_s_launch(recording):
    """A Python launcher's setup calls it once, then zeroes the outputs: the kernels
    before that zero fill are the warm-up's. The recorded torch.matmul at 4096 ran
    the cuBLAS kernel twice in the traced round (64.3 ms and 67.1 ms into it)."""
    record = json.loads((recording / "timeline/sgemm/v8_torch_matmul.json").read_text())
    (big,) = [s for s in record["sizes"] if s["size"] == 4096]
    assert sum(r["kind"] in ("KERNEL", "CONCURRENT_KERNEL") for r in big["raw"]) == 2
    table = table_of(record)
    kernels = table[(table["size"] == 4096) & (table["kind"] == "kernel")]
    assert len(kernels) == 1
    fill = table[(table["size"] == 4096) & (table["kind"] == "memset")]
    assert kernels["start_ns"].item() > fill["end_ns"].item()
    # a kernel launcher zeroes first: its kernel stays; and a Python one's launch
    # that runs several kernels after the zero fill keeps them all
    copy, zero = _activity("memcpy_htod", 0, 10), _activity("memset", 20, 21)
    out = _activity("memcpy_dtoh", 90, 99)
    launch = [_activity("kernel", 30, 40), _activity("kernel", 41, 50)]
    kept = tidy([copy, zero, *launch, out], ("f", "v"), 8)
    assert list(kept["kind"]) == [
        "memcpy_htod",
        "memset",
        "kernel",
        "kernel",
        "memcpy_dtoh",
    ]
    warm = [_activity("kernel", 12, 15), _activity("kernel", 16, 18)]
    kept = tidy([copy, *warm, zero, *launch, out], ("f", "v"), 8)
    assert list(kept["start_ns"]) == [0, 20, 30, 41, 90]
