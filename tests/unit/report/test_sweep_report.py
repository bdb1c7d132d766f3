"""The sweep's tables, heatmap and report section from a constructed sweep of SGEMM v7
(no GPU): spread, top configurations, invalid ones with reasons, both languages."""

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nsightflow import i18n
from nsightflow.analysis.sweep import sweep_tables, write_analysis
from nsightflow.family.registry import load_family
from nsightflow.gpu.sweep import driver as S
from nsightflow.gpu.sweep import space as SP
from nsightflow.gpu.sweep.search import SweepCache
from nsightflow.io import write_json
from nsightflow.plot.sweep import heat_axes, heat_grid, write_figures
from nsightflow.report.sections.family import ReportBuilder
from nsightflow.report.sections.sweep import SweepSections, config_note

ROOT = Path(__file__).resolve().parents[3]
FAMILY = load_family(ROOT / "kernels" / "sgemm")
V7 = FAMILY.variants["v7_double_buffer"]
BASE_US = {4096: 3080.0, 8192: 24400.0}  # the default's medians (about 45 TFLOP/s)
WRONG = "BM128_BN128_BK16_TM4_TN8_WN8_MIN_BLOCKS1"
CRASHED = "BM128_BN128_BK16_TM4_TN8_WN16_MIN_BLOCKS1"
CEILINGS = {"copy_gbps": 4250.0, "fp32_gflops": 64400.0, "vendor_sgemm_gflops": 51100.0}


def _factor(p: dict[str, int]) -> float:
    """A made-up landscape: BK 16 with two blocks per SM is 5% faster than the default."""
    f = 1.0
    f *= {4: 1.4, 8: 1.0, 16: 2.5 if p["MIN_BLOCKS"] == 2 else 1.2}[p["TM"]]
    f *= 0.95 if (p["BK"], p["MIN_BLOCKS"]) == (16, 2) else 1.0
    f *= 1.1 if p["BM"] == 64 else 1.0
    f *= 1.03 if p["WN"] == 8 else 1.0
    return f


def _record(tmp_path: Path) -> dict:
    """A v7 full-space sweep: 32 points break a constraint, 8 need > 48 KB of shared
    memory, one computes wrong, one crashes, the rest have times."""
    entries = SP.plan(V7, "full")
    runnable = []
    cache = SweepCache(tmp_path / "cache.jsonl", "k")
    for e in entries:
        if e["status"] != "pending":
            continue
        p = e["params"]
        smem = 2 * p["BK"] * (p["BM"] + 4 + p["BN"]) * 4
        if smem > 48 * 1024:
            e.update(
                status="too_much_shared_memory", message="uses too much shared data"
            )
            continue
        e.update(status="ok", cubin_sha=e["id"], resources={"registers": 128})
        runnable.append(e)
        if e["id"] == WRONG:
            result = {
                "status": "wrong_result",
                "message": "n=256: relative L2 error 0.7",
            }
        elif e["id"] == CRASHED:
            result = {
                "status": "launch_failed",
                "message": "the process died (exit -11)",
            }
        else:
            times = {str(n): t * _factor(p) for n, t in BASE_US.items()}
            result = {"status": "ok", "times_us": times, "wall_s": 0.9}
        cache.append(e["id"], e["id"], result)
    compiled = {
        "family": "sgemm",
        "variant": "v7_double_buffer",
        "space": "full",
        "axes": {a.name: list(a.values) for a in V7.params},
        "defaults": V7.defaults,
        "configs": entries,
        "compile_wall_s": 14.2,
    }
    record = S.assemble(compiled, runnable, cache, (4096, 8192))
    record.update(
        strategy="exhaustive",
        sweep_wall_s=71.5,
        resumed=3,
        restarts=1,
        provenance={"gpu": "NVIDIA H200", "date": "2026-12-01T10:00:00+00:00"},
    )
    return record


@pytest.fixture
def tables(tmp_path):
    return sweep_tables([_record(tmp_path)], FAMILY)


def test_the_summary_measures_the_spread_against_the_default(tables):
    configs, summary = tables
    row = summary.iloc[0]
    assert row["configs"] == 96
    counts = configs["status"].value_counts()
    assert counts["wrong_result"] == 1 and counts["launch_failed"] == 1
    assert counts["constraint"] == 32 and counts["too_much_shared_memory"] == 8
    assert row["ok"] == 64 - 8 - 2 and row["invalid"] == 96 - row["ok"]
    best = "BM128_BN128_BK16_TM8_TN8_WN16_MIN_BLOCKS2"
    assert (
        row["best_id"] == best and configs.set_index("config_id").loc[best, "is_best"]
    )
    assert row["default_over_best"] == pytest.approx(1 / 0.95)
    # worst: BM 64, WN 8, TM 16 spilling at two blocks per SM
    assert row["worst_over_best"] == pytest.approx(2.5 * 1.1 * 1.03 / 0.95)
    gflops = 2 * 8192**3 / (BASE_US[8192] * 0.95 * 1e3)
    assert configs.set_index("config_id").loc[best, "gflops_8192"] == pytest.approx(
        gflops
    )


def test_the_heatmap_holds_the_others_at_the_best(tables):
    configs, _summary = tables
    axes = {a.name: list(a.values) for a in V7.params}
    mine = configs[configs["variant"] == V7.name]
    assert heat_axes(axes) == ("TM", "BM")  # no times: TM has 3 values, BM is first
    # along TM the time moves 2.5x, along BM 1.1x, BK and MIN_BLOCKS 1.05x, WN 1.03x
    assert heat_axes(axes, mine, 8192) == ("TM", "BM")
    flat = mine.assign(time_us_8192=mine["time_us_8192"].where(mine["param_TM"] == 8))
    assert heat_axes(axes, flat, 8192) == ("BK", "BM")  # TM no longer moves it
    times, labels, _ = heat_grid(mine, axes, 8192)
    # rows BM 64, 128; columns TM 4, 8, 16; BK 16, MIN_BLOCKS 2 as in the best
    assert times[1, 1] == pytest.approx(BASE_US[8192] * 0.95)
    assert times[1, 2] == pytest.approx(BASE_US[8192] * 0.95 * 2.5)
    assert times[0, 1] == pytest.approx(BASE_US[8192] * 0.95 * 1.1)
    assert labels[1][1] == "23.18 ms"


def test_invalid_cells_show_their_reason():
    axes = {"BK": [8, 16], "BM": [64, 128]}
    configs = pd.DataFrame(
        {
            "config_id": ["a", "b", "c", "d"],
            "status": ["ok", "too_much_shared_memory", "ok", "constraint"],
            "param_BK": [8, 16, 8, 16],
            "param_BM": [64, 64, 128, 128],
            "time_us_4": [5.0, np.nan, 4.0, np.nan],
            "is_best": [False, False, True, False],
            "is_default": [True, False, False, False],
        }
    )
    _times, labels, drawn = heat_grid(configs, axes, 4)
    assert drawn == ("BM", "BK")
    assert labels == [["5.0 us", "4.0 us"], ["smem", "constraint"]]


def test_figures_are_written_for_every_variant_with_a_sweep_and_no_other(tmp_path):
    write_json(tmp_path / "v7.json", _record(tmp_path))
    write_json(
        tmp_path / "v6.json",
        {"family": "sgemm", "variant": "v6_vectorized", "status": "not_recorded"},
    )
    out = tmp_path / "analysis"
    write_analysis([tmp_path / "v7.json", tmp_path / "v6.json"], out, FAMILY)
    written = write_figures(out, tmp_path / "figures", ["v6_vectorized", V7.name])
    # no "no sweep recorded" placeholder: the report shows no heatmap for v6
    assert [p.name for p in written] == [f"{V7.name}.png", f"{V7.name}.svg"]
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [
        f"{V7.name}.png",
        f"{V7.name}.svg",
    ]
    assert all(p.stat().st_size > 10_000 for p in written)  # a heatmap


def _section(tables, language: str = "en") -> str:
    configs, summary = tables
    analysis = pd.DataFrame({"profiled": [True], "size": [4096]})
    ctx = {
        "family": {
            "name": "sgemm",
            "vendor": "sgemm",
            "profile_sizes": [4096],
            "sizes": [4096],
        },
        "variants": [{"name": V7.name, "params": V7.defaults}],
        "ceilings": CEILINGS,
        "sweep": {"summary": summary, "configs": configs},
    }
    section = SweepSections(
        analysis, pd.DataFrame(), pd.DataFrame(), ctx, language, findings=pd.DataFrame()
    )
    with i18n.language(language):
        return section.sweeps() + "\n" + config_note(section.variants, ctx, V7.name)


def test_the_section_reads_the_best_against_cublas_and_lists_the_invalid(tables):
    text = _section(tables)
    gflops = 2 * 8192**3 / (BASE_US[8192] * 0.95 * 1e3)
    rate = (
        f"{gflops:,.0f} GFLOP/s ({100 * gflops / 64400:.1f}% of the measured FP32 "
        f"peak, {100 * gflops / 51100:.1f}% of cuBLAS)"
    )
    assert (
        f"Best `BM128_BN128_BK16_TM8_TN8_WN16_MIN_BLOCKS2`: {rate} at n = 8192" in text
    )
    assert "the default `BM128_BN128_BK8_TM8_TN8_WN16_MIN_BLOCKS2` **1.05x**" in text
    assert "Tuning pays: the best configuration is 5.0% faster" in text
    assert "42 of 96 configurations have no time" in text
    for reason, count in (
        ("more than 48 KB of shared memory per block", 8),
        ("a manifest constraint is false", 32),
        ("wrong result at the verify size", 1),
        ("launch failed, crashed or hung", 1),
    ):
        assert re.search(rf"\| {reason} +\| +{count} \|", text), reason
    assert "figures/sweep/v7_double_buffer.png" in text
    assert "interrupted sweep: 3; restarts of the GPU process" in text
    # v7 was compiled at its defaults here, which are not the best
    assert "Measured at its default configuration (not swept)," in text


def test_the_section_in_chinese(tables):
    text = _section(tables, "zh")
    assert "声明了可调参数的版本" in text and "cuBLAS 的" in text
    assert "每个 block 的共享内存超过 48 KB" in text


def test_a_sweep_the_recording_lacks_is_said_so(tmp_path):
    configs, summary = sweep_tables(
        [{"family": "sgemm", "variant": V7.name, "status": "not_recorded"}], FAMILY
    )
    text = _section((configs, summary))
    assert (
        f"`{V7.name}`: no sweep in these measurements; it runs at its default" in text
    )
    assert "configuration `BM128_BN128_BK8_TM8_TN8_WN16_MIN_BLOCKS2`." in text


def test_the_report_builder_keeps_the_sweep_methods():
    # a name shared with another section's mixin would silently replace one of them
    names = [n for n in vars(SweepSections) if n.startswith("_sweep") or n == "sweeps"]
    assert all(getattr(ReportBuilder, n) is getattr(SweepSections, n) for n in names)
