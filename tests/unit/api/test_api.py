"""nsightflow.api on CPU: replay of the bundled recording, the Results tables, compare,
and measure through the real stages on the fake pycuda (tests/unit/fake_pycuda: its
"GPU" is numpy on a fake clock, so nothing measured here is a measurement)."""

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from matplotlib.figure import Figure

import nsightflow.api as nf
from nsightflow.errors import GpuUnavailableError, ManifestError, StageInputError

ROOT = Path(__file__).resolve().parents[3]
FAMILIES = ROOT / "tests" / "data" / "families"
FAKE_PYCUDA = ROOT / "tests" / "unit" / "fake_pycuda"
FAKE_BIN = ROOT / "tests" / "unit" / "fake_bin"


@pytest.fixture(scope="module")
def vecadd(tmp_path_factory, recording) -> nf.Results:
    """The bundled recording's vecadd family replayed through the API, once."""
    results = tmp_path_factory.mktemp("api") / "results"
    return nf.replay(["vecadd"], results, recording, ROOT / "kernels")


def test_replay_writes_what_the_h200_wrote(vecadd, same_as_on_gpu):
    # the workflow's own check of a replay: every column from the raw files as on the GPU
    same_as_on_gpu(vecadd.path / "report" / "vecadd" / "summary.csv", "vecadd")
    assert vecadd.families == ["vecadd"]


def test_the_ladder_is_one_row_per_variant_in_story_order(vecadd):
    ladder = vecadd.ladder("vecadd")
    family = nf.load_family(ROOT / "kernels" / "vecadd")
    assert list(ladder["variant"]) == list(family.variants)
    assert list(ladder.columns) == [*nf.LADDER_COLUMNS, "size"]
    assert set(ladder["size"]) == {max(family.sizes)}
    summary = vecadd.summary("vecadd")
    at = summary[summary["size"] == max(family.sizes)].set_index("variant")
    for row in ladder.itertuples():
        assert row.time_median_us == at.loc[row.variant, "time_median_us"]
    # the Triton launcher is a variant like the others: measured on the H200, ranked
    triton = ladder.set_index("variant").loc["v4_triton"]
    assert triton["status"] == "ok" and triton["improves_on"] == "v3_float4"
    assert vecadd.ladder("vecadd", size=1048576)["size"].eq(1048576).all()


def test_results_read_every_table_of_the_run(vecadd):
    metrics = vecadd.metrics("vecadd")
    assert {"variant", "size", "launch", "kernel", "metric", "value"} <= set(metrics)
    assert "vecadd_triton" in set(metrics["kernel"])  # found by ncu under its own name
    findings = vecadd.findings("vecadd")
    assert {"rule", "role", "message"} <= set(findings) and len(findings)
    assert len(vecadd.hotspots("vecadd")) and len(vecadd.stalls("vecadd"))
    names = [v["name"] for v in vecadd.context("vecadd")["variants"]]
    assert "v4_triton" in names


def test_figures_and_reports_are_the_stages_files(vecadd):
    png = vecadd.figure_file("vecadd", "roofline")
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert isinstance(vecadd.figure("vecadd", "perf_vs_size"), Figure)
    html = vecadd.report_file("vecadd").read_text()
    assert "v4_triton" in html
    with pytest.raises(StageInputError, match="choose a name of"):
        vecadd.figure_file("vecadd", "nonsense")
    with pytest.raises(StageInputError, match="replay\\(\\) or measure\\(\\)"):
        vecadd.summary("sgemm")


def test_compare_the_recording_with_a_second_run(recording, tmp_path):
    second = ROOT / "examples" / "h200_rerun"
    compared = nf.compare(
        recording, second, ("vecadd",), tmp_path / "cmp", kernels_dir=ROOT / "kernels"
    )
    pairs = compared.pairs
    # v0..v3 were timed in both runs at 4 sizes; the Triton variant only in the first
    assert set(pairs["variant"]) == {
        "v0_one_per_thread",
        "v1_grid_stride",
        "v2_coarsened",
        "v3_float4",
    }
    assert len(pairs) == 16 and sum(compared.verdicts.values()) == 16
    assert set(pairs["verdict"]) <= {"SAME", "FASTER", "SLOWER", "UNCERTAIN"}
    assert (tmp_path / "cmp" / "compare.md").is_file()
    written = pd.read_csv(tmp_path / "cmp" / "compare.csv")
    assert len(written) == len(pairs)


@pytest.fixture
def fake_gpu(monkeypatch):
    """The GPU stages' worker processes import the CPU stand-in for pycuda."""
    path = os.pathsep.join([str(FAKE_PYCUDA), str(ROOT / "src")])
    monkeypatch.setenv("PYTHONPATH", path)
    monkeypatch.setenv("PATH", f"{FAKE_BIN}{os.pathsep}{os.environ['PATH']}")


def test_measure_runs_the_gpu_stages_on_python_launchers(fake_gpu, recording, tmp_path):
    options = nf.MeasureOptions(ceilings=recording / "ceilings.json", sanitize=False)
    run = nf.measure("fakelaunch", (), (), tmp_path / "results", FAMILIES, options)
    ladder = run.ladder("fakelaunch").set_index("variant")
    assert ladder["status"].to_dict() == {
        "v0_launcher": "ok",
        "v1_wrong": "wrong",
        "v2_missing": "skipped",
    }
    # 8 us per call on the fake clock: the events bracket the whole call
    assert ladder.loc["v0_launcher", "time_median_us"] == pytest.approx(8.0)
    context = {v["name"]: v for v in run.context("fakelaunch")["variants"]}
    assert "nsightflow_no_such_framework" in context["v2_missing"]["message"]
    assert "not installed here" in context["v2_missing"]["message"]
    assert run.report_file("fakelaunch", "md").is_file()


def test_measure_at_chosen_sizes_reads_a_copy_of_the_manifest(
    fake_gpu, recording, tmp_path
):
    options = nf.MeasureOptions(
        ceilings=recording / "ceilings.json", sanitize=False, report=False
    )
    run = nf.measure(
        "fakelaunch", ["v0_launcher"], [4096], tmp_path / "r", FAMILIES, options
    )
    timed = run.summary("fakelaunch").dropna(subset=["time_median_us"])
    assert set(timed["size"]) == {4096} and set(timed["variant"]) == {"v0_launcher"}
    assert (tmp_path / "r" / "kernels" / "fakelaunch" / "v0_launcher.py").is_file()
    # the manifest it ran is the original with these sizes, the original untouched
    assert nf.load_family(tmp_path / "r" / "kernels" / "fakelaunch").sizes == (4096,)
    assert nf.load_family(FAMILIES / "fakelaunch").sizes == (4096, 65536)
    assert not (tmp_path / "r" / "report" / "fakelaunch" / "report.md").exists()


def test_measure_names_an_unknown_variant(tmp_path):
    with pytest.raises(ManifestError, match=r"no variant \['v9_nope'\]"):
        nf.measure("fakelaunch", ["v9_nope"], (), tmp_path, FAMILIES)


def test_measure_without_a_gpu_points_to_replay_not_to_the_workflow_config(tmp_path):
    if nf_gpu_ok():
        pytest.skip("this machine has a usable GPU")
    with pytest.raises(GpuUnavailableError) as raised:
        nf.measure("vecadd", results=tmp_path / "r")
    message = str(raised.value)
    assert "nf.replay(" in message and "mode: replay" not in message


def nf_gpu_ok() -> bool:
    from nsightflow.machine.capabilities import gpu_available

    return gpu_available()[0]


def test_a_run_without_results_leaves_no_folder_once_python_exits():
    code = (
        "from nsightflow.api.pipeline import _folder\n"
        "folder = _folder(None)\n"
        "(folder / 'report').mkdir(); (folder / 'report' / 'a.csv').write_text('x')\n"
        "print(folder)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    folder = Path(proc.stdout.strip())
    assert folder.name.startswith("nsightflow-") and not folder.exists()
