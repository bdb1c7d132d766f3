"""Figures of the bundled recording: readable, complete, and written as PNG and SVG."""

import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pandas as pd
import pytest

from nsightflow.plot import data
from nsightflow.plot.check import text_overlaps
from nsightflow.plot.figures import family_figures, write_figures
from nsightflow.plot.names import FIGURES, figure_files
from nsightflow.plot.steps import ratio_cell
from nsightflow.plot.style import bandwidth_text, bytes_text, time_text

RECORDING = Path(__file__).resolve().parents[3] / "examples" / "h200"

SVG = "{http://www.w3.org/2000/svg}"


def _tables(folder: Path) -> tuple[pd.DataFrame, pd.DataFrame, dict]:
    return (
        pd.read_csv(folder / "analysis.csv"),
        pd.read_csv(folder / "stalls.csv"),
        json.loads((folder / "context.json").read_text()),
    )


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
    # the vendor line's rate at the panel's size: the ladder's cuBLAS (v8) timed
    # there, ideal FLOPs over its median (51.4 TFLOP/s at n = 4096), not the
    # ceilings.json rate measured at n = 8192
    v8 = analysis[
        (analysis["variant"] == "v8_torch_matmul") & (analysis["size"] == 4096)
    ]
    vendor = f"{2 * 4096**3 / v8['time_median_us'].iloc[0] / 1e6:.3g}"
    assert any(
        t.startswith(f"cuBLAS SGEMM (n = 4096), {vendor} TFLOP/s") for t in titles
    ), [t for t in titles if "cuBLAS" in t]
    assert not any(t.startswith("cuBLAS SGEMM (n = 8192)") for t in titles)
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
    # cuBLAS at n = 8192, where ceilings.json measured it: the ladder's own timing
    # of it there (one rate per size), not a second cuBLAS rate beside it
    v8 = sgemm[(sgemm["variant"] == "v8_torch_matmul") & (sgemm["size"] == 8192)]
    assert round(v8["gflops"].iloc[0]) in ref
    assert round(sgemm_ctx["ceilings"]["vendor_sgemm_gflops"]) not in ref


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


def _points(ax) -> list:
    return [
        line
        for line in ax.lines
        if line.get_linestyle() == "None" and len(line.get_xdata()) == 1
    ]


def test_roofline_draws_only_dram_points_without_an_l2_or_l1_roof(analyses):
    """Without an L1 roof an L1 point would stand beyond the DRAM roof, unexplained."""
    analysis, stalls, ctx = _tables(analyses["jacobi2d"])
    ctx["ceilings"] |= {"l2_gbps": None, "l1_gbps": None, "shared_gbps": None}
    assert not {"datasheet_l2_gbps", "datasheet_l1_gbps"} & set(ctx["ceilings"])
    fig = family_figures(analysis, stalls, ctx)["roofline"]
    axes = [ax for ax in fig.axes if ax.get_title().startswith("n = ")]
    assert [ax.get_title() for ax in axes] == ["n = 2048", "n = 8192"]
    fills = [line.get_fillstyle() for line in _points(axes[1])]
    assert fills == ["full"] * len(ctx["variants"])
    copy = ctx["ceilings"]["copy_gbps"]  # GB/s = FLOP/ns per FLOP/byte
    for line in _points(axes[1]):  # no point above its own (DRAM) roof
        x, y = float(line.get_xdata()[0]), float(line.get_ydata()[0])
        assert y <= 1.01 * min(x * copy, ctx["ceilings"]["fp32_gflops"])
    xs = [float(line.get_xdata()[0]) for line in _points(axes[1])]
    low, high = axes[1].get_xlim()
    assert low < min(xs) and max(xs) < high and high / low < 100  # not 10^-2..10^3
    labels = {t.get_text() for t in axes[1].texts}
    assert {"v4", "v5"} <= labels  # the two variants at the DRAM floor stay apart
    legend = [t.get_text() for t in fig.legends[0].texts]
    assert "L2 / L1 points not drawn: no L2 / L1 roof measured" in legend
    assert "roofline (DRAM bytes)" in fig.get_suptitle()


def test_roofline_draws_l2_and_l1_points_and_roofs_when_the_ceilings_hold_them(
    analyses,
):
    analysis, stalls, ctx = _tables(analyses["jacobi2d"])
    ctx["ceilings"] |= {"l2_gbps": 9000.0, "datasheet_l1_gbps": 30000.0}
    fig = family_figures(analysis, stalls, ctx)["roofline"]
    legend = [t.get_text() for t in fig.legends[0].texts]
    assert "L2 roof, measured: 9 TB/s" in legend
    assert "L1 roof, datasheet: 30 TB/s" in legend
    assert not any("not drawn" in t for t in legend)
    fills = [line.get_fillstyle() for line in _points(fig.axes[1])]
    variants = len(ctx["variants"])
    assert fills.count("full") == fills.count("bottom") == fills.count("none")
    assert fills.count("none") == variants


@pytest.mark.parametrize("family", ["jacobi2d", "sgemm", "vecadd", "reduction"])
def test_no_recorded_point_stands_above_its_own_levels_measured_roof(analyses, family):
    """The H200's measured L2 and L1 roofs bound what its kernels reached there."""
    analysis, stalls, ctx = _tables(analyses[family])
    c = ctx["ceilings"]
    assert c["l2_gbps"] and c["l1_gbps"]  # the recording measured both
    fig = family_figures(analysis, stalls, ctx)["roofline"]
    roofs = {"full": c["copy_gbps"], "bottom": c["l2_gbps"], "none": c["l1_gbps"]}
    points = [
        p for ax in fig.axes if ax.get_title().startswith("n = ") for p in _points(ax)
    ]
    assert {p.get_fillstyle() for p in points} == set(roofs)
    for line in points:
        x, y = float(line.get_xdata()[0]), float(line.get_ydata()[0])
        roof = roofs[line.get_fillstyle()]
        assert y <= 1.02 * min(x * roof, c["fp32_gflops"]), (
            family,
            line.get_fillstyle(),
        )


@pytest.mark.parametrize("family", ["histogram", "sgemm", "reduction"])
def test_roofline_axis_holds_the_roof_above_the_points(analyses, family):
    """The DRAM roof at the points' largest intensity is on the axis, not cropped.

    Histogram's privatized variants reach 0.5 TFLOP/s at 1 FLOP/B under a DRAM roof
    of 4.2 TFLOP/s there: an axis fitted to the points ended at 0.7 TFLOP/s.
    """
    analysis, stalls, ctx = _tables(analyses[family])
    c = ctx["ceilings"]
    fig = family_figures(analysis, stalls, ctx)["roofline"]
    for ax in [a for a in fig.axes if a.get_title().startswith("n = ")]:
        full = [p for p in _points(ax) if p.get_fillstyle() == "full"]
        ai = max(float(p.get_xdata()[0]) for p in full)
        roof = min(ai * c["copy_gbps"], c["fp32_gflops"])
        low, high = ax.get_ylim()
        assert low < roof < high, (family, ax.get_title(), roof, high)


def test_cublas_is_a_rate_line_with_no_point_at_an_unmeasured_intensity(analyses):
    analysis, stalls, ctx = _tables(analyses["sgemm"])
    fig = family_figures(analysis, stalls, ctx)["roofline"]
    # each panel's line at cuBLAS's rate at that panel's size (the ladder's v8,
    # ideal FLOPs over its median time), not ceilings.json's n = 8192 rate
    v8 = analysis[analysis["variant"] == "v8_torch_matmul"].set_index("size")
    panels = [ax for ax in fig.axes if ax.get_title().startswith("n = ")]
    assert panels
    for ax in panels:
        n = int(ax.get_title().removeprefix("n = ").replace(",", ""))
        rate = 2 * n**3 / v8.loc[n, "time_median_us"] / 1e3  # GFLOP/s
        stars = [line for line in ax.lines if line.get_marker() == "*"]
        assert not [line for line in stars if line.get_color() == "k"]
        flat = [
            line
            for line in ax.lines
            if line.get_linestyle() == ":"
            and len(set(line.get_ydata())) == 1
            and line.get_color() == "k"
        ]
        assert len(flat) == 1, n
        assert flat[0].get_ydata()[0] == pytest.approx(rate, rel=1e-3), n


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
    assert "for name in FIGURE_FILES" in rules and "STEP_DIR" in rules
    assert re.search(r"\.png\"", rules) is None  # no second list of figure names


def _nearest_gap(box, point) -> float:
    dx = max(box.x0 - point[0], 0.0, point[0] - box.x1)
    dy = max(box.y0 - point[1], 0.0, point[1] - box.y1)
    return math.hypot(dx, dy)


@pytest.mark.parametrize("family", ["sgemm", "reduction", "histogram", "spmv"])
def test_each_roofline_label_sits_nearer_its_own_point_than_any_other(analyses, family):
    """A label level with a neighbour's marker reads as the neighbour's.

    SGEMM at n = 4096: the "v6" label sat level with v7's marker and "v7" below v6's,
    so the figure read as v6 above v7, the reverse of the data.
    """
    from matplotlib.text import Annotation

    analysis, stalls, ctx = _tables(analyses[family])
    fig = family_figures(analysis, stalls, ctx)["roofline"]
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    misread = []
    for ax in [a for a in fig.axes if a.get_title().startswith("n = ")]:
        notes = [t for t in ax.texts if isinstance(t, Annotation) and t.get_text()]
        points = [ax.transData.transform(t.xy) for t in notes]
        for k, note in enumerate(notes):
            box = note.get_window_extent(renderer)
            mine = _nearest_gap(box, points[k])
            for j, other in enumerate(points):
                # points a few pixels apart read as one, whichever is labelled
                if j != k and _nearest_gap(box, other) + 3 < mine:
                    misread.append(
                        (ax.get_title(), note.get_text(), notes[j].get_text())
                    )
    assert misread == []
