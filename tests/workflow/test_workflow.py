"""Snakemake end to end on the CPU: dry runs, a replay run, and what re-runs when."""

import json
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pandas as pd
import pytest

from cli_run import copy_workflow

REPORT_FILES = ("report.md", "report.html", "report.pdf", "summary.csv")
ROOT = Path(__file__).resolve().parents[2]
# The full replay runs below take the two first families; the pattern families are
# checked on the session's replay of every family (test_pattern_replays.py).
PINNED = ("--config", "families=[jacobi2d,sgemm]")


def n_variants(family: str | None = None) -> int:
    """Variants of every default family (or of one): the job counts scale with it."""
    from nsightflow.family.registry import load_families

    families = load_families(ROOT / "kernels")
    return sum(len(f.variants) for f in families if family in (None, f.name))


def n_families() -> int:
    from nsightflow.family.registry import load_families

    return len(load_families(ROOT / "kernels"))


def n_swept() -> tuple[int, int]:
    """(variants, families) with declared params: the sweep rules' job counts."""
    from nsightflow.family.registry import load_families

    swept = [
        [v for v in f.variants.values() if v.params]
        for f in load_families(ROOT / "kernels")
    ]
    return sum(len(s) for s in swept), sum(1 for s in swept if s)


def snakemake(
    workdir: Path, *args: str, mode: str | None = None
) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("NSIGHTFLOW_MODE", None)
    if mode:
        env["NSIGHTFLOW_MODE"] = mode
    return subprocess.run(
        ["snakemake", "--cores", "2", *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def jobs(proc: subprocess.CompletedProcess) -> dict[str, int]:
    """The dry run's job-count table: rule -> count."""
    table = proc.stdout.split("Job stats:", 1)
    assert len(table) == 2, proc.stdout + proc.stderr
    counts = {}
    for line in table[1].splitlines()[3:]:
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            break
        if parts[0] != "total":
            counts[parts[0]] = int(parts[1])
    return counts


def test_dry_run_default_config_measure(workdir):
    proc = snakemake(workdir, "-n", mode="measure")
    assert proc.returncode == 0, proc.stderr
    v, f = n_variants(), n_families()
    sv, sf = n_swept()
    assert jobs(proc) == {
        "compile_sweep": sv,
        "sweep_variant": sv,
        "sweep_family": sf,
        **{
            rule: v
            for rule in (
                "compile_variant",
                "measure_variant",  # verify, time and timeline in one GPU job
                "sanitize_variant",
                "parse_reports",
            )
        },
        **{
            rule: f
            for rule in (
                "reference_family",  # inputs and references once, on the CPU
                "profile_family",  # the variants of a family in one ncu process
                "analyze_family",
                "report_family",
                "render_pdf",
            )
        },
        "choose_timeline_backend": 1,
        "measure_ceilings": 1,
        "tabulate_ceilings": 1,
        "report_index": 1,
        "all": 1,
    }


def test_dry_run_default_config_without_gpu_replays(workdir):
    proc = snakemake(workdir, "-n")
    assert proc.returncode == 0, proc.stderr
    # said on the console (and in .snakemake/log)
    assert "replaying the measurements recorded in examples/h200" in proc.stdout
    counts = jobs(proc)
    from nsightflow.family.registry import load_families

    # one replay job per family, no GPU rule and no nvcc: sources match the recording
    for family in load_families(ROOT / "kernels"):
        assert counts[f"replay_{family.name}"] == 1
    assert not {"measure_variant", "compile_variant"} & set(counts)
    # at most half the jobs of a per-variant replay (7 rules x variants before)
    assert sum(counts.values()) <= (7 * n_variants() + 7 * n_families() + 4) / 2


def test_swept_variants_compile_their_best_and_the_switch_turns_sweeps_off(workdir):
    proc = snakemake(
        workdir, "-n", "-p", "--config", "families=[jacobi2d]", mode="measure"
    )
    assert proc.returncode == 0, proc.stderr
    # the swept variant compiles from its sweep record; an unswept one from nothing
    shell = re.sub(r"\\\n\s*", "", proc.stdout)  # shell lines joined
    assert re.search(
        r"sweep-compile --kernels-dir kernels --family jacobi2d "
        r"--variant v5_strip_vec4 --space quick",
        shell,
    )
    assert (
        "v5_strip_vec4.resources.json --sweep results/sweep/jacobi2d/v5_strip_vec4.json"
        in shell
    )
    assert re.search(r"v0_naive.resources.json --sweep *$", shell, re.M)
    (workdir / "off.yaml").write_text("families: [jacobi2d]\nsweep: {enabled: false}\n")
    off = snakemake(workdir, "-n", "--configfile", "off.yaml", mode="measure")
    assert off.returncode == 0, off.stderr
    assert not {"compile_sweep", "sweep_variant", "sweep_family"} & set(jobs(off))


def test_a_second_run_in_another_folder_reads_this_workflows_config_and_recording(
    workdir, tmp_path_factory
):
    """docs/compare.md's second replay: `--directory OTHER` from the checkout."""
    other = tmp_path_factory.mktemp("second") / "run2"
    proc = snakemake(workdir, "-n", "--directory", str(other))
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr
    counts = jobs(proc)
    assert counts["replay_jacobi2d"] == 1 and counts["report_index"] == 1
    assert (other / ".snakemake").is_dir()  # Snakemake ran there
    # the checkout's own run is untouched by it
    assert not (workdir / "results").exists()


def test_dry_run_test_config(workdir):
    proc = snakemake(workdir, "-n", "--configfile", ".test/config.yaml")
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def pinned_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A workflow folder after the replay run of PINNED (PDFs included), made once for
    the module: the tests below go on from a copy of it (:func:`_replayed_copy`)."""
    work = copy_workflow(tmp_path_factory.mktemp("pinned"))
    proc = snakemake(work, *PINNED)
    assert proc.returncode == 0, proc.stderr
    return work


def _replayed_copy(pinned_replay: Path, tmp_path: Path) -> Path:
    """A copy of the replayed folder: the files with their times, and Snakemake's
    records of the run (.snakemake), so Snakemake sees the same finished run."""
    return shutil.copytree(pinned_replay, tmp_path / "work", symlinks=True)


def test_replay_run_builds_reports_and_reruns_only_what_changed(
    pinned_replay, tmp_path, same_as_on_gpu
):
    workdir = _replayed_copy(pinned_replay, tmp_path)
    for name in REPORT_FILES:
        assert (workdir / "results/report/jacobi2d" / name).stat().st_size > 0
    md = (workdir / "results/report/jacobi2d/report.md").read_text()
    assert "Replayed, not measured here" in md and "NVIDIA H200" in md
    summary = pd.read_csv(workdir / "results/report/jacobi2d/summary.csv")
    from nsightflow.family.registry import load_family

    assert set(summary["variant"]) == set(
        load_family(ROOT / "kernels/jacobi2d").variants
    )
    assert (workdir / "results/report/index.html").is_file()
    # The same numbers as the report the H200 itself wrote from this recording.
    for family in ("jacobi2d", "sgemm"):
        same_as_on_gpu(workdir / "results/report" / family / "summary.csv", family)
    assert (workdir / "results/report/ceilings.csv").read_text().count(
        "NVIDIA H200"
    ) == 1

    again = snakemake(workdir, "-n", *PINNED)
    assert "Nothing to be done" in again.stdout + again.stderr

    # The Chinese reports are files of their own (report.zh.*, index.zh.*):
    # building them re-runs nothing of the English ones, and switching back is free.
    english = {
        p: p.stat().st_mtime_ns
        for p in (workdir / "results/report").rglob("*")
        if p.is_file()
    }
    zh = (*PINNED, 'report={"language": "zh"}')
    assert jobs(snakemake(workdir, "-n", *zh)) == {
        "report_family": 2,
        "render_pdf": 2,
        "report_index": 1,
        "all": 1,
    }
    assert snakemake(workdir, *zh).returncode == 0
    for family in ("jacobi2d", "sgemm"):
        for suffix in ("md", "html", "pdf"):
            assert (workdir / f"results/report/{family}/report.zh.{suffix}").is_file()
    assert "基础测评" in (workdir / "results/report/jacobi2d/report.zh.md").read_text()
    assert "report.zh.html" in (workdir / "results/report/index.zh.html").read_text()
    assert {p: p.stat().st_mtime_ns for p in english} == english
    for config in (PINNED, zh):
        again = snakemake(workdir, "-n", *config)
        assert "Nothing to be done" in again.stdout + again.stderr

    time.sleep(1.1)  # coarse file-system timestamps
    # Snakemake skips inputs whose mtime moved but whose content did not: edit it.
    recorded = workdir / "examples/h200/time/jacobi2d/v1_smem.json"
    recorded.write_text(
        recorded.read_text().replace('"family"', '"note": "edited", "family"', 1)
    )
    assert jobs(snakemake(workdir, "-n", *PINNED)) == {
        # the family's profile folders are copied again and parsed (one process)
        "replay_jacobi2d": 1,
        "sweep_family": 1,  # and its sweep records
        "analyze_family": 1,  # tables, summary, figures and the timeline's
        "report_family": 1,
        "render_pdf": 1,
        "report_index": 1,
        "all": 1,
    }


def _stale(workdir: Path, family: str) -> set[str]:
    """Variants whose source differs from the one the recording was measured with."""
    from nsightflow.family.registry import load_family
    from nsightflow.tools.nvcc import source_digest

    build = workdir / "examples/h200/build" / family
    return {
        v.name
        for v in load_family(workdir / "kernels" / family).variants.values()
        if json.loads((build / f"{v.name}.resources.json").read_text()).get(
            "source_sha256"
        )
        != source_digest(v.source)
    }


def test_changing_one_source_reruns_only_that_variant(pinned_replay, tmp_path):
    workdir = _replayed_copy(pinned_replay, tmp_path)
    stale = _stale(workdir, "jacobi2d")
    assert "v1_smem" not in stale and "v0_naive" not in stale
    time.sleep(1.1)
    source = workdir / "kernels/jacobi2d/v1_smem.cu"
    source.write_text(source.read_text() + "\n// edited\n")
    # replay mode: the family's replay job compiles the edited variant again (its
    # resources feed the report) and flags it; the other family is not touched
    proc = snakemake(workdir, "-n", *PINNED)
    assert jobs(proc)["replay_jacobi2d"] == 1 and "replay_sgemm" not in jobs(proc)
    proc = snakemake(workdir, *PINNED)
    assert proc.returncode == 0, proc.stderr
    log = (workdir / "logs/replay/jacobi2d.log").read_text()
    assert "jacobi2d/v1_smem: source changed since the recording" in log
    assert "v0_naive: source changed" not in log
    md = (workdir / "results/report/jacobi2d/report.md").read_text()
    flagged = {
        m.group(1)
        for ln in md.splitlines()
        if "source changed since the recording" in ln
        for m in [re.search(r"`(v\d+_\w+)`", ln)]
        if m
    }
    # the edited variant, and those edited since the recording was made (the sweeps'
    # -D parameters) until it is made again
    assert flagged == stale | {"v1_smem"}, (flagged, stale)
    resources = json.loads(
        (workdir / "results/build/jacobi2d/v1_smem.resources.json").read_text()
    )
    assert resources["source_changed"] and resources["status"] == "ok"
    assert (workdir / "results/build/jacobi2d/v1_smem.cubin").stat().st_size > 0
    # measure mode: that variant's GPU jobs too, and nothing of the other variants'
    # but their profile (the family's variants share one ncu run) and its parsing.
    # Stand in for a finished measurement run: touch the outputs in DAG order.
    source.write_text(source.read_text().replace("\n// edited\n", ""))
    # measure mode's one-off timeline backend choice, which replay does not make
    (workdir / "results/timeline/backend.json").write_text("{}\n")
    # nor the family's inputs and references (an edited kernel keeps them)
    (workdir / "results/reference/jacobi2d").mkdir(parents=True)
    (workdir / "results/reference/jacobi2d/index.json").write_text("{}\n")
    # and the cubins a measure run leaves (replay reuses the recorded resources)
    for cubin in (workdir / "results/build").glob("*/*.resources.json"):
        cubin.with_name(cubin.name.replace(".resources.json", ".cubin")).touch()
    touch = snakemake(
        workdir, "--touch", "--rerun-triggers", "mtime", *PINNED, mode="measure"
    )
    assert touch.returncode == 0, touch.stderr
    time.sleep(1.1)
    source.write_text(source.read_text() + "\n// edited\n")
    proc = snakemake(
        workdir, "-n", "--rerun-triggers", "mtime", *PINNED, mode="measure"
    )
    assert jobs(proc) == {
        "compile_variant": 1,
        "measure_variant": 1,
        "profile_family": 1,
        "sanitize_variant": 1,
        "parse_reports": n_variants("jacobi2d"),
        "analyze_family": 1,
        "report_family": 1,
        "render_pdf": 1,
        "report_index": 1,
        "all": 1,
    }
    others = [
        block
        for block in proc.stdout.split("\n\n")
        if "rule parse_reports" not in block and "rule profile_family" not in block
    ]
    assert not any(
        "variant=v0_naive" in b or "variant=v2_coarsen2" in b for b in others
    )


def test_changing_a_header_recompiles_the_variants_that_include_it(workdir):
    # up to the family's replay job, which compiles what changed (a changed variant in
    # the report: test_changing_one_source_reruns_only_that_variant)
    scan = ("--until", "replay_scan", "--config", "families=[scan]")
    assert snakemake(workdir, *scan).returncode == 0
    time.sleep(1.1)
    header = workdir / "kernels/scan/reduce_then_scan.cuh"  # v2 and v3 include it
    header.write_text(header.read_text() + "\n// edited\n")
    assert jobs(snakemake(workdir, "-n", *scan))["replay_scan"] == 1
    assert snakemake(workdir, *scan).returncode == 0
    log = (workdir / "logs/replay/scan.log").read_text()
    compiled = set(re.findall(r"scan/(\w+): source changed", log))
    assert compiled == {"v2_reduce_then_scan", "v3_smem_transpose"}, log
