"""Fault rows that need the GPU itself (marked; run with `pytest -m gpu` on the GPU
machine): a kernel that never ends, and compute-sanitizer on real launches."""

import json
import shutil
from pathlib import Path

import pytest
from test_gpu import FAULTY, ROOT, nsightflow

needs_sanitizer = pytest.mark.skipif(
    shutil.which("compute-sanitizer") is None,
    reason="compute-sanitizer not on PATH",
)


def _compiled(kernels: Path, family: str, variant: str, tmp: Path) -> list[str]:
    args = ["--kernels-dir", str(kernels), "--family", family, "--variant", variant]
    args += ["--cubin", str(tmp / f"{variant}.cubin")]
    nsightflow("compile", *args, "--resources", str(tmp / f"{variant}.res.json"))
    return [*args, "--resources", str(tmp / f"{variant}.res.json")]


def _stage(stage: str, args: list[str], out: Path, *extra: str) -> dict:
    nsightflow(stage, *args, "--out", str(out), *extra)
    return json.loads(out.read_text())


@pytest.mark.gpu
def test_a_kernel_that_never_ends_is_killed_and_the_gpu_still_works(tmp_path):
    hang = _compiled(FAULTY, "faulty", "v4_hang", tmp_path)
    record = _stage("verify", hang, tmp_path / "hang.json", "--timeout-s", "10")
    assert record["status"] == "timeout", record["message"]
    late = _compiled(FAULTY, "faulty", "v5_late", tmp_path)
    assert _stage("verify", late, tmp_path / "late.json")["status"] == "ok"


@pytest.mark.gpu
@needs_sanitizer
def test_memcheck_names_the_out_of_bounds_write(tmp_path):
    oob = _compiled(FAULTY, "faulty", "v3_oob", tmp_path)
    record = _stage("sanitize", oob, tmp_path / "oob.json", "--timeout-s", "120")
    memcheck = record["tools"][0]
    assert memcheck["tool"] == "memcheck" and memcheck["status"] == "errors"
    assert memcheck["device_findings"] > 0
    assert any("Invalid __global__ write" in k for k in memcheck["kinds"])
    good = _compiled(FAULTY, "faulty", "v0_naive", tmp_path)
    clean = _stage("sanitize", good, tmp_path / "v0.json", "--timeout-s", "120")
    assert clean["status"] == "ok", clean["message"]
    assert [t["status"] for t in clean["tools"]] == ["clean", "not_applicable"]


@pytest.mark.gpu
@needs_sanitizer
def test_racecheck_runs_on_the_shared_memory_tile(tmp_path):
    smem = _compiled(ROOT / "kernels", "jacobi2d", "v1_smem", tmp_path)
    record = _stage("sanitize", smem, tmp_path / "v1.json", "--timeout-s", "300")
    assert [t["tool"] for t in record["tools"]] == ["memcheck", "racecheck"]
    assert record["status"] == "ok", record["message"]
