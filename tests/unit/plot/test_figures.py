"""Figures of the bundled recording: readable, complete, and written as PNG and SVG."""

import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

import recorded
from nsightflow.plot import data
from nsightflow.plot.check import text_overlaps
from nsightflow.plot.figures import family_figures, write_figures
from nsightflow.plot.names import FIGURES, figure_files, step_stem
from nsightflow.plot.step_detail import step_figure
from nsightflow.plot.steps import ratio_cell, step_changes_figure
from nsightflow.plot.style import bandwidth_text, bytes_text, time_text
from recorded import analyze as _analyze

FAMILIES = (
    "conv2d",
    "histogram",
    "jacobi2d",
    "reduction",
    "scan",
    "sgemm",
    "spmv",
    "vecadd",
)
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def analyses(recording, tmp_path_factory):
    """analysis.csv / stalls.csv / context.json of every recorded family."""
    kernels = Path(__file__).resolve().parents[3] / "kernels"
    for family in FAMILIES:
        recorded.KERNELS.setdefault(family, kernels)
    return {
        family: _analyze(recording, family, tmp_path_factory.mktemp(family))
        for family in FAMILIES
    }


def _tables(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    return (
        pd.read_csv(folder / "analysis.csv"),
        pd.read_csv(folder / "stalls.csv"),
        json.loads((folder / "context.json").read_text()),
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_no_figure_has_overlapping_or_clipped_text(analyses, family):
    """Every text box (ticks, labels, legends, point labels) is apart from every
    other and inside the canvas, measured with matplotlib's own extents."""
    analysis, stalls, ctx = _tables(analyses[family])
    figures = family_figures(analysis, stalls, ctx)
    steps = [v["name"] for v in ctx["variants"] if v["improves_on"]]
    assert set(figures) == {*FIGURES, *(step_stem(s) for s in steps)}
    problems = {name: text_overlaps(fig) for name, fig in figures.items()}
    assert {name: p for name, p in problems.items() if p} == {}


def test_overlap_check_catches_overlapping_text():
    from nsightflow.plot.svg import tipped_figure

    fig = tipped_figure(3, 2)
    ax = fig.subplots()
    ax.text(0.5, 0.5, "one label")
    ax.text(0.52, 0.5, "another label")
    fig.text(0.9, 0.1, "runs off the right edge of the figure")
    found = text_overlaps(fig)
    assert ("one label", "another label") in found
    assert ("runs off the right edge of the figure", "<outside the figure>") in found


def test_svg_keeps_text_and_carries_point_tooltips(analyses, tmp_path):
    paths = write_figures(analyses["sgemm"], tmp_path)
    names = {p.relative_to(tmp_path).as_posix() for p in paths}
    assert set(figure_files()) <= names
    assert "steps/step_v7_double_buffer.svg" in names
    for name in FIGURES:  # every PNG has its SVG twin with the same stem
        assert (tmp_path / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    root = ET.parse(tmp_path / "roofline.svg").getroot()
    assert root.get("data-nsf-figure") == "roofline"
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "arithmetic intensity" in texts and "TFLOP/s" in texts  # text, not paths
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    analysis = pd.read_csv(analyses["sgemm"] / "analysis.csv")
    v7 = analysis[
        (analysis["variant"] == "v7_double_buffer") & (analysis["size"] == 4096)
    ]
    tflops = float(v7["measured_flops"].iloc[0] / v7["ncu_time_ns"].iloc[0] / 1e3)
    expected = f"v7_double_buffer, n = 4096, {tflops:.3g} TFLOP/s"
    assert any(t.startswith(expected) for t in titles), titles[:5]
    assert any(t.startswith("cuBLAS SGEMM (n = 8192), 51.1 TFLOP/s") for t in titles)
    curve = ET.parse(tmp_path / "perf_vs_size.svg").getroot()
    tips = [t.text or "" for t in curve.iter(f"{SVG}title")]
    timed = data.timed(analysis)
    assert len([t for t in tips if " median (IQR " in t]) == len(timed)


def test_sgemm_throughput_panel_uses_flop_rate_and_jacobi_bandwidth(analyses):
    sgemm, _, sgemm_ctx = _tables(analyses["sgemm"])
    jacobi, _, _ = _tables(analyses["jacobi2d"])
    assert data.choose_lens(sgemm).lens == "compute"
    assert data.choose_lens(jacobi).lens == "memory"
    fig = family_figures(sgemm, pd.DataFrame(), sgemm_ctx)["perf_vs_size"]
    ax = fig.axes[1]
    assert ax.get_yscale() == "log"  # 0.5 .. 45 TFLOP/s
    ref = {
        round(line.get_ydata()[0]) for line in ax.lines if len(line.get_ydata()) == 2
    }
    assert round(sgemm_ctx["ceilings"]["fp32_gflops"]) in ref
    assert round(sgemm_ctx["ceilings"]["vendor_sgemm_gflops"]) in ref


def test_regime_column_decides_the_lens_over_the_ceilings():
    frame = pd.DataFrame(
        {
            "variant": ["a", "b", "c"],
            "size": [1024] * 3,
            "status": ["ok"] * 3,
            "profiled": [True] * 3,
            "time_median_us": [1.0] * 3,
            "pct_of_copy_bw": [80.0, 85.0, 90.0],  # closer to the copy ceiling ...
            "pct_of_fp32_peak": [10.0, 12.0, 11.0],
        }
    )
    assert data.choose_lens(frame).lens == "memory"
    regime = frame.assign(regime=["compute", "compute", "memory"])  # ... but measured
    assert data.choose_lens(regime).lens == "compute"
    undecided = frame.assign(regime=["", "", ""])
    assert data.choose_lens(undecided).lens == "memory"


def test_roofline_draws_each_variant_per_measured_level_fitted_to_the_data(analyses):
    analysis, stalls, ctx = _tables(analyses["jacobi2d"])
    fig = family_figures(analysis, stalls, ctx)["roofline"]
    axes = [ax for ax in fig.axes if ax.get_title().startswith("n = ")]
    assert [ax.get_title() for ax in axes] == ["n = 2048", "n = 8192"]
    points = [
        line
        for line in axes[1].lines
        if line.get_linestyle() == "None" and len(line.get_xdata()) == 1
    ]
    fills = [line.get_fillstyle() for line in points]
    variants = len(ctx["variants"])
    assert (
        fills.count("full") == fills.count("bottom") == fills.count("none") == variants
    )
    xs = [float(line.get_xdata()[0]) for line in points]
    low, high = axes[1].get_xlim()
    assert low < min(xs) and max(xs) < high and high / low < 100  # not 10^-2..10^3
    labels = {t.get_text() for t in axes[1].texts}
    assert {"v4", "v5"} <= labels  # the two variants at the DRAM floor stay apart
    assert "L2 / L1 roof: not measured" in [t.get_text() for t in fig.legends[0].texts]


def test_roofline_draws_l2_and_l1_roofs_when_the_ceilings_hold_them(analyses):
    analysis, stalls, ctx = _tables(analyses["jacobi2d"])
    ctx["ceilings"] |= {"l2_gbps": 9000.0, "datasheet_l1_gbps": 30000.0}
    fig = family_figures(analysis, stalls, ctx)["roofline"]
    legend = [t.get_text() for t in fig.legends[0].texts]
    assert "L2 roof, measured: 9 TB/s" in legend
    assert "L1 roof, datasheet: 30 TB/s" in legend
    assert not any("not measured" in t for t in legend)


def test_stall_reasons_keep_one_colour_in_every_family(analyses):
    colours: dict[str, set] = {}
    for family in ("sgemm", "jacobi2d", "scan"):
        analysis, stalls, ctx = _tables(analyses[family])
        fig = family_figures(analysis, stalls, ctx)["stalls"]
        for handle, text in zip(
            fig.legends[0].legend_handles, fig.legends[0].texts, strict=True
        ):
            colours.setdefault(text.get_text(), set()).add(handle.get_facecolor())
    assert all(len(c) == 1 for c in colours.values()), colours
    assert len(colours) >= 8


def test_step_changes_label_changes_from_and_to_zero():
    assert ratio_cell(0.0, 1.2e6)[1:] == ("0 → 1.2M", True)
    assert ratio_cell(5.0, 0.0)[1:] == ("→ 0", True)
    assert ratio_cell(0.0, 0.0)[1] == "0 = 0"
    assert math.isnan(ratio_cell(float("nan"), 1.0)[0])
    assert ratio_cell(2.0, 4.0)[1] == "2x"
    assert ratio_cell(170.0, 1.0)[1] == "1/170x"


def _two_variants() -> tuple[pd.DataFrame, dict]:
    frame = pd.DataFrame(
        {
            "variant": ["v0_a", "v0_a", "v1_b", "v1_b"],
            "size": [1024, 4096] * 2,
            "status": ["ok"] * 4,
            "profiled": [False, True, False, True],
            "time_median_us": [10.0, 100.0, 8.0, 50.0],
            "inst_executed": [None, 4.0e6, None, 1.0e6],
            "smem_conflicts_ld": [None, 0.0, None, 3.0e5],
            "dram_bytes": [None, 1.0e8, None, 1.0e8],
        }
    )
    ctx = {
        "family": {"title": "T", "name": "t"},
        "ceilings": {},
        "variants": [
            {"name": "v0_a", "improves_on": None},
            {"name": "v1_b", "improves_on": "v0_a"},
        ],
    }
    return frame, ctx


def test_step_changes_show_a_change_from_zero_and_outline_the_primary_cause():
    frame, ctx = _two_variants()
    findings = pd.DataFrame(
        {"variant": ["v1_b"], "role": ["primary"], "metric": ["smem_conflicts_ld"]}
    )
    ax = step_changes_figure(frame, ctx, findings).axes[0]
    rows = [t.get_text() for t in ax.get_yticklabels()]
    assert rows == [
        "time",
        "issued warp instructions",
        "DRAM bytes",
        "smem conflicts ld",
    ]
    cells = {t.get_text() for t in ax.texts}
    assert {"0.5x", "0.25x", "1x", "0 → 300k"} <= cells
    outlined = [p for p in ax.patches if not p.get_fill()]
    assert len(outlined) == 1 and outlined[0].get_y() == pytest.approx(3 - 0.5)


def test_step_figure_shows_the_primary_metric_or_says_it_has_none():
    frame, ctx = _two_variants()
    findings = pd.DataFrame(
        {"variant": ["v1_b"], "role": ["primary"], "metric": ["inst_executed"]}
    )
    fig = step_figure(frame, ctx, "v1_b", findings)
    assert fig.axes[1].get_title() == "primary cause: issued warp instructions"
    heights = sorted(p.get_height() for p in fig.axes[1].patches)
    assert heights == [1.0e6, 4.0e6]
    bare = step_figure(frame, ctx, "v1_b")
    assert "no primary cause recorded" in bare.axes[1].get_title()
    assert sorted(p.get_height() for p in bare.axes[1].patches) == [1.25, 2.0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (time_text(9_500.0), "9,500 us"),
        (time_text(80_322.72), "80.3 ms"),
        (time_text(24.8), "24.8 us"),
        (bytes_text(2.0e8), "200 MB"),
        (bytes_text(3.44e11), "344 GB"),
        (bandwidth_text(4252.2), "4.25 TB/s"),
        (bandwidth_text(950.0), "950 GB/s"),
    ],
)
def test_units_fit_the_value(text, expected):
    assert text == expected


def test_figure_names_are_what_the_workflow_declares():
    rules = (
        Path(__file__).resolve().parents[3] / "workflow/rules/report.smk"
    ).read_text()
    assert "name=FIGURE_FILES" in rules and "STEP_DIR" in rules
    assert re.search(r"\.png\"", rules) is None  # no second list of figure names
