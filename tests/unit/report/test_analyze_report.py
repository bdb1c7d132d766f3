import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from nsightflow.analysis.analyze import add_derived
from nsightflow.contracts import SUMMARY
from nsightflow.diagnosis.build import family_findings
from nsightflow.family.registry import load_family
from nsightflow.plot.figures import FIGURES, write_figures
from nsightflow.report.build import write_report
from recorded import analyze as _analyze

ROOT = Path(__file__).resolve().parents[3]


def test_speedups_follow_the_recorded_medians(recording, tmp_path):
    frame = pd.read_csv(_analyze(recording, "jacobi2d", tmp_path) / "analysis.csv")
    timing = {
        v: json.loads((recording / f"time/jacobi2d/{v}.json").read_text())
        for v in ("v0_naive", "v1_smem", "v2_coarsen2")
    }
    med = {
        v: {r["size"]: r["time_median_us"] for r in t["rows"]}
        for v, t in timing.items()
    }
    row = frame[(frame["variant"] == "v1_smem") & (frame["size"] == 8192)].iloc[0]
    assert row["speedup_vs_baseline"] == pytest.approx(
        med["v0_naive"][8192] / med["v1_smem"][8192]
    )
    assert row["gbps"] == pytest.approx(
        2 * 4 * 8192**2 / (med["v1_smem"][8192] * 1e-6) / 1e9
    )
    # the seed report's honest negative result holds on the H200 too
    assert row["speedup_vs_baseline"] < 1
    assert row["smem_conflicts_ld"] > 0
    ranked = frame[(frame["size"] == 8192) & (frame["status"] == "ok")]["rank"]
    assert sorted(ranked) == list(range(1, len(ranked) + 1))
    assert frame[frame["status"] != "ok"]["rank"].isna().all()


def test_wrong_and_broken_variants_are_kept_but_never_ranked(recording, tmp_path):
    frame = pd.read_csv(_analyze(recording, "faulty", tmp_path) / "analysis.csv")
    by_variant = frame.groupby("variant")
    status = by_variant["status"].first()
    assert status["v1_wrong"] == "wrong" and status["v2_broken"] == "compile_failed"
    assert status["v3_oob"] == "crashed"  # illegal address on the H200, run went on
    assert status["v5_late"] == "ok"  # the same kernel as v0, measured after the crash
    bad = frame[~frame["variant"].isin(["v0_naive", "v5_late"])]
    assert len(bad) == 4 * len(frame["size"].unique())  # every size still has a row
    assert bad["rank"].isna().all() and bad["speedup_vs_baseline"].isna().all()
    ok = frame[frame["status"] == "ok"]
    assert set(ok["variant"]) == {"v0_naive", "v5_late"}
    assert set(ok["rank"]) <= {1, 2}  # equal kernels may tie
    wrong = json.loads((recording / "verify/faulty/v1_wrong.json").read_text())
    assert wrong["status"] == "wrong"  # recorded by the pipeline on the H200


def test_add_derived_does_not_mutate_its_input():
    fam = load_family(ROOT / "kernels" / "jacobi2d")
    frame = pd.DataFrame(
        {
            "variant": ["v0_naive"],
            "size": [512],
            "status": ["ok"],
            "time_median_us": [4.0],
        }
    )
    before = frame.copy()
    out = add_derived(frame, fam, {"copy_gbps": 4000.0, "fp32_gflops": 60000.0})
    pd.testing.assert_frame_equal(frame, before)
    assert out.loc[0, "speedup_vs_baseline"] == 1.0


@pytest.mark.parametrize("family", ["jacobi2d", "sgemm", "faulty"])
def test_report_from_recording(recording, tmp_path, family):
    analysis = _analyze(recording, family, tmp_path)
    out = tmp_path / "report"
    write_figures(analysis, out / "figures")
    write_report(analysis, out / "figures", out)
    md = (out / "report.md").read_text()
    for heading in (
        "## Brief",
        "## 1. Bound",
        "## 2. Optimization steps",
        "## Appendix",
        "### A.1 Summary of every variant",
        "Every variant over the sizes",
        "Provenance",
    ):
        assert heading in md
    assert "NVIDIA H200" in md
    for name in FIGURES:
        png = out / "figures" / f"{name}.png"
        assert png.read_bytes()[:4] == b"\x89PNG" and f"figures/{name}.png" in md
    html = (out / "report.html").read_text()
    ctx = json.loads((analysis / "context.json").read_text())
    steps = [
        v["name"] for v in ctx["variants"] if v["improves_on"] and v["status"] == "ok"
    ]
    for step in steps:  # each measured step section shows its own figure
        assert f"figures/steps/step_{step}.png" in md
    # each figure once: inline SVG (tooltips) where the plot stage wrote one, else PNG
    images = html.count('<div class="svg"') + len(
        re.findall(r'<img [^>]*src="data:image/png;base64,', html)
    )
    # the energy figure beside them where the time records hold energy (jacobi2d and
    # sgemm in the recording; faulty's records predate it)
    frame = pd.read_csv(analysis / "analysis.csv")
    energy = bool(frame.get("energy_j_per_launch", pd.Series()).notna().any())
    assert energy == (family != "faulty")
    assert ("figures/energy.png" in md) == energy
    assert "<table>" in html and images == len(FIGURES) + len(steps) + energy
    from nsightflow.report.pdf.build import write_pdf

    write_pdf(html, out, out / "report.pdf")
    assert (out / "report.pdf").read_bytes()[:5] == b"%PDF-"
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary.columns) == list(SUMMARY.columns)
    if family == "jacobi2d":
        assert "RealTime (event median)" in md and " -> " in md
        assert "does not pay" in md  # v1_smem, shown honestly
        med = {
            v: next(
                r["time_median_us"]
                for r in json.loads(
                    (recording / f"time/jacobi2d/{v}.json").read_text()
                )["rows"]
                if r["size"] == 8192
            )
            for v in ("v0_naive", "v1_smem")
        }
        slower = 100 * (med["v1_smem"] / med["v0_naive"] - 1)
        assert slower > 0
        smem = md.split("Step 1: `v1_smem` in full", 1)[1].split("### A.", 1)[0]
        assert f"us ({slower:+.1f}%)" in smem  # the event-timed slowdown, as measured
        # its primary cause: the barrier the tile needs, with the added instructions
        # next (DRAM bytes did not change: the caches already served the re-reads)
        assert "Primary cause: **Barriers (__syncthreads)**" in smem
        assert "Also: **Instruction count**" in smem
        # the body says it in one line: the outcome, the cause, its number, its line
        body = md.split("### 2.1 `v1_smem`", 1)[1].split("### 2.2", 1)[0]
        assert f"{slower:.0f}% slower" in body
        assert "**Why:** barrier waits: barrier stall cycles per instruction" in body
        # every variant timed by the one run of 2026-12-02 (recording.json's date):
        # the provenance names no second measuring run
        made = json.loads((recording / "recording.json").read_text())["date"][:10]
        runs = ctx["provenance"]["timing_runs"]
        assert len(runs) == 1 and runs[0]["day"] == made
        assert set(runs[0]["variants"]) == {v["name"] for v in ctx["variants"]}
        assert "measuring runs:" not in md
        assert "Stall **barrier** rose" in md
        assert "+++ v1_smem.cu" in md and "+    __syncthreads();" in md
    elif family == "sgemm":
        padded = md.split("`v3_padded` in full", 1)[1].split("### A.", 1)[0]
        assert "Shared-memory bank conflicts removed" in padded
        transposed = md.split("`v2_tiled_transposed` in full", 1)[1]
        assert "pad or swizzle the shared layout" in transposed.split("### A.", 1)[0]
        assert "of cuBLAS SGEMM" in md  # compute-bound: rated against FLOP ceilings
        summary = md.split("### A.1", 1)[1].split("### A.2", 1)[0]
        assert "GB/s" not in summary.split("\n\n")[1]  # the table reads in GFLOP/s
    else:
        assert "Variants that failed" in md
        assert 'identifier "offset" is undefined' in md
        assert summary[summary["variant"] == "v1_wrong"]["status"].eq("wrong").all()


def test_user_strings_are_escaped_in_html(recording, tmp_path):
    from nsightflow.report.html import to_html
    from nsightflow.report.sections.family import ReportBuilder

    analysis = _analyze(recording, "faulty", tmp_path)
    ctx = json.loads((analysis / "context.json").read_text())
    ctx["family"]["title"] = "<b>title</b>"
    ctx["variants"][1]["idea"] = "<script>alert(1)</script> & more"
    frame = pd.read_csv(analysis / "analysis.csv")
    stalls = pd.read_csv(analysis / "stalls.csv")
    found = family_findings(frame, stalls, pd.DataFrame(), ctx)  # of the edited ctx
    text = ReportBuilder(frame, stalls, pd.DataFrame(), ctx, findings=found).build()
    page = to_html(text, ctx["family"]["title"])
    assert "<script>" not in page and "<b>title</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<title>&lt;b&gt;title&lt;/b&gt;</title>" in page


def test_every_number_names_its_raw_file(recording, tmp_path):
    analysis = _analyze(recording, "jacobi2d", tmp_path)
    ctx = json.loads((analysis / "context.json").read_text())
    v1 = next(v for v in ctx["variants"] if v["name"] == "v1_smem")
    assert v1["files"]["timing"].endswith("time/jacobi2d/v1_smem.json")
    # both sizes are parts of the family's one shared report, as profile.json names it
    named = json.loads(
        (recording / "profile/jacobi2d/v1_smem/profile.json").read_text()
    )
    files = {r["file"] for r in named["reports"]}
    assert len(named["reports"]) == 2 and len(files) == 1
    (shared,) = files  # ../jacobi2d.<hash>.ncu-rep
    assert (recording / "profile/jacobi2d/v1_smem" / shared).is_file()
    assert [Path(p).name for p in v1["files"]["ncu_reports"]] == [Path(shared).name]


def test_a_family_without_any_timing_says_so_without_placeholders(recording, tmp_path):
    """A recording that lacks a family's timings (a family added after it was made)."""
    from nsightflow.machine.recording import not_recorded

    partial = tmp_path / "rec"
    for sub in ("build/jacobi2d", "verify/jacobi2d", "profile/jacobi2d"):
        (partial / sub).parent.mkdir(parents=True, exist_ok=True)
        shutil.copytree(recording / sub, partial / sub)
    for name in ("ceilings.json", "recording.json"):
        shutil.copy(recording / name, partial / name)
    for verify in (recording / "verify/jacobi2d").glob("*.json"):
        variant = verify.stem
        absent = partial / "time/jacobi2d" / "absent.json"
        not_recorded(  # what replay writes for a timing the recording lacks
            partial / "time/jacobi2d" / f"{variant}.json",
            ("jacobi2d", variant),
            f"{absent} is not in the recording",
            absent,
        )
    analysis = _analyze(partial, "jacobi2d", tmp_path)
    out = tmp_path / "report"
    write_figures(analysis, out / "figures")
    write_report(analysis, out / "figures", out)
    md = (out / "report.md").read_text()
    baseline = md.split("### A.2")[1].split("### A.3")[0]
    assert "No variant of this family has timings" in baseline
    assert "?" not in baseline and "| size" not in baseline
    assert "No variant of this family has timings" in md.split("## 1.")[0]  # brief
    summary = pd.read_csv(out / "summary.csv")
    assert set(summary["status"]) == {"not_recorded"}  # verified, but never timed
    assert "| `v0_naive`" in md and "not_recorded" in md.split("### A.2")[0]


def test_a_report_without_findings_names_no_cause_and_says_why(recording, tmp_path):
    """The report renders findings.csv and runs no rule: without the file its
    diagnosis is absent and the header says how to write it."""
    analysis = _analyze(recording, "jacobi2d", tmp_path)
    with_findings, without = tmp_path / "with", tmp_path / "without"
    write_report(analysis, with_findings / "figures", with_findings)
    (analysis / "findings.csv").unlink()
    write_report(analysis, without / "figures", without)
    full = (with_findings / "report.md").read_text()
    md = (without / "report.md").read_text()
    assert "holds no `findings.csv`" in md and "holds no `findings.csv`" not in full
    # the primary cause of the baseline, marked in the full report, is gone
    assert "Primary cause: " in full and "Primary cause: " not in md


def test_step_changes_write_every_ratio_even_far_ones(recording, tmp_path):
    """Histogram's privatization step cuts the time ~170x: the step-changes map
    writes that ratio, computed from the analysis, in the step's time cell."""
    from nsightflow.plot.steps import step_changes_figure

    analysis = _analyze(recording, "histogram", tmp_path)
    frame = pd.read_csv(analysis / "analysis.csv")
    ctx = json.loads((analysis / "context.json").read_text())
    size = frame.loc[frame["profiled"].astype(bool), "size"].max()
    at = frame[frame["size"] == size].set_index("variant")["time_median_us"]
    ratio = at["v1_private"] / at["v0_global_atomic"]
    assert ratio < 1 / 64
    ax = step_changes_figure(frame, ctx).axes[0]
    labels = {t.get_text().strip() for t in ax.texts}
    assert f"1/{1 / ratio:,.0f}x" in labels
