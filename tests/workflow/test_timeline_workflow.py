"""The timeline stage in the workflow: its rules, and the replayed report on a CPU."""

import re

import pandas as pd
import pytest
from test_workflow import jobs, n_families, n_variants, snakemake

pytestmark = pytest.mark.timeout(1800)  # the session's replay may be its setup


def test_measure_dry_run_chooses_the_backend_once_and_traces_every_variant(workdir):
    proc = snakemake(workdir, "-n", "-p", mode="measure")
    assert proc.returncode == 0, proc.stderr
    counts = jobs(proc)
    assert counts["choose_timeline_backend"] == 1
    # each variant's trace is taken by its measure job
    assert counts["measure_variant"] == n_variants()
    assert proc.stdout.count("--timeline-record") == n_variants()
    # the family's timeline tables and figure: stages chained in its analyze job
    assert counts["analyze_family"] == n_families()
    assert proc.stdout.count("--then timeline-analyze --records") == n_families()


def test_switched_off_timeline_has_no_jobs(workdir):
    (workdir / "off.yaml").write_text("timeline:\n  enabled: false\n")
    proc = snakemake(workdir, "-n", "-p", "--configfile", "off.yaml", mode="measure")
    assert proc.returncode == 0, proc.stderr
    counts = jobs(proc)
    assert "choose_timeline_backend" not in counts
    assert counts["measure_variant"] == n_variants()
    assert "--timeline-record" not in proc.stdout
    assert counts["analyze_family"] == n_families()
    assert "timeline-analyze" not in proc.stdout and "timeline-plot" not in proc.stdout


def test_replayed_report_shows_the_timeline_figure_and_transfer_table(
    every_family_replay,
):
    # the README's replay (tests/conftest.py): jacobi2d's report is the one the test
    # config's run writes (.test/config.yaml: jacobi2d alone), PDF included
    workdir = every_family_replay
    report = workdir / "results/report/jacobi2d"
    md = (report / "report.md").read_text()
    assert re.search(r"^### A\.\d+ Timeline: copies and kernel$", md, re.M)
    assert "![copies and kernel of each variant](figures/timeline.png)" in md
    assert "transfers dominate every variant" in md
    assert (report / "figures/timeline.png").stat().st_size > 10_000
    html = (report / "report.html").read_text()
    # embedded: inline SVG where the plot stage wrote one, else the PNG as data
    assert re.search(
        r'aria-label="copies and kernel of each variant"|'
        r'<img alt="copies and kernel of each variant" src="data:',
        html,
    )
    assert re.search(r"<th[^>]*>HtoD GB/s</th>", html)
    summary = pd.read_csv(workdir / "results/analysis/jacobi2d/timeline_summary.csv")
    from nsightflow.family.registry import load_family

    family = load_family(workdir / "kernels/jacobi2d")
    assert set(summary["variant"]) == set(family.variants)
    traced = summary[summary["status"] == "ok"]
    assert set(traced["size"]) >= {8192} and set(traced["backend"]) == {"cupti"}
    assert (report / "report.pdf").stat().st_size > 0


def test_a_variant_missing_from_the_recording_is_shown_not_recorded(workdir):
    (workdir / "examples/h200/timeline/jacobi2d/v1_smem.json").unlink()
    (workdir / "examples/h200/timeline/jacobi2d/v1_smem.csv").unlink()
    proc = snakemake(
        workdir,
        "results/report/jacobi2d/report.md",  # before --configfile, which is greedy
        "--configfile",
        ".test/config.yaml",
    )
    assert proc.returncode == 0, proc.stderr
    md = (workdir / "results/report/jacobi2d/report.md").read_text()
    section = md.split("Timeline: copies and kernel", 1)[1].split("\n### A.", 1)[0]
    assert re.search(r"\| `v1_smem` +\| not_recorded +\|", section)
    assert "`v0_naive`" in section
