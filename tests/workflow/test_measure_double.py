"""Measure mode end to end on the CPU, with a test double of the GPU workers.

``snakemake`` runs the measure-mode DAG of Jacobi-2D (compile -> sweep-compile ->
sweep -> compile at the sweep's best -> reference -> measure -> sanitize -> profile ->
parse -> analyze -> report) with ``NSIGHTFLOW_TEST_GPU_DOUBLE`` naming a folder of
outputs recorded on the H200 (:mod:`nsightflow.machine.double`): each GPU entry point
returns its recorded file instead of starting a worker; nvcc is a stand-in that
prints the recorded ptxas resources (tests/workflow/double_bin). The sweeps are of
the quick space, built from the full sweeps' recorded times (tests/quick_sweep.py);
v5's tuned point (BLOCK_X 64, ROWS 2) lies off the quick axes, which stopped
sweep_family on a fresh H200. Nothing here is a measurement, and the report says so.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pandas as pd

from nsightflow.io import write_json
from quick_sweep import quick_record

ROOT = Path(__file__).resolve().parents[2]
RECORDING = ROOT / "examples" / "h200"
FAMILY = "jacobi2d"
# the PDF is left out: the replay tests render it (10 s here)
SNAKEMAKE = ("snakemake", "--cores", "2", "--omit-from", "render_pdf")
TUNED = "BLOCK_X64_BLOCK_Y8_ROWS2"  # kernels/jacobi2d/tuned.yaml, v5_strip_vec4


def _double(folder: Path, kernels: Path) -> Path:
    """The recorded outputs of the family, with quick-space sweeps."""
    (folder / "sweep" / FAMILY).mkdir(parents=True)
    for name in ("recording.json", "ceilings.json"):
        shutil.copy2(RECORDING / name, folder / name)
    for kind in ("verify", "time", "profile", "sanitize", "timeline"):
        shutil.copytree(RECORDING / kind / FAMILY, folder / kind / FAMILY)
    for recorded in sorted((RECORDING / "sweep" / FAMILY).glob("*.json")):
        record = quick_record(FAMILY, recorded.stem, folder, kernels)
        write_json(folder / "sweep" / FAMILY / recorded.name, record)
    (folder / "cache.jsonl").unlink()
    return folder


def _run(workdir: Path, double: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "NSIGHTFLOW_MODE"}
    fake_bin = Path(__file__).parent / "double_bin"  # nvcc: the recorded ptxas lines
    env.update(
        NSIGHTFLOW_MODE="measure",
        NSIGHTFLOW_TEST_GPU_DOUBLE=str(double),
        FAKE_NVCC_RESOURCES=str(RECORDING / "build" / FAMILY),
        PATH=f"{fake_bin}{os.pathsep}{env['PATH']}",
        TMPDIR=str(workdir),  # the GPU lock's files, apart from other runs'
    )
    return subprocess.run(
        [*SNAKEMAKE, "--config", f"families=[{FAMILY}]"],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )


def test_measure_mode_runs_the_whole_dag_with_the_gpu_workers_doubled(workdir):
    double = _double(workdir / "double", workdir / "kernels")
    proc = _run(workdir, double)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]
    for rule in ("compile_sweep", "sweep_variant", "sweep_family", "measure_variant"):
        assert f"rule {rule}:" in log, rule  # measure mode's own rules ran
    assert "replay_family" not in log
    report = workdir / "results" / "report" / FAMILY
    for name in ("report.md", "report.html", "summary.csv"):  # the PDF: replay tests
        assert (report / name).is_file(), name
    # the tuned point off the quick axes: measured (here: recorded), best, drawn
    sweep = pd.read_csv(workdir / "results" / "analysis" / FAMILY / "sweep.csv")
    v5 = sweep[sweep["variant"] == "v5_strip_vec4"].set_index("config_id")
    assert bool(v5.loc[TUNED, "is_best"])
    assert (report / "figures" / "sweep" / "v5_strip_vec4.png").is_file()
    resources = workdir / "results" / "build" / FAMILY / "v5_strip_vec4.resources.json"
    assert TUNED in resources.read_text()  # compiled at the sweep's best
    text = (report / "report.md").read_text()
    assert "test double" in text.lower()  # never presented as a measurement
    summary = pd.read_csv(report / "summary.csv")
    assert set(summary["variant"]) >= {"v0_naive", "v5_strip_vec4"}
    assert (summary["status"] == "ok").all(), summary[["variant", "status"]]
