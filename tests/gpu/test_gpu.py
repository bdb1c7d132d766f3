"""On a GPU machine: the real launcher, verification, timing and ncu (marked, skipped
visibly elsewhere). Run with `pytest -m "gpu or ncu"` on the GPU machine."""

import json
import statistics
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from cli_run import nsightflow as run_cli

ROOT = Path(__file__).resolve().parents[2]
FAULTY = ROOT / "tests" / "data" / "families"


def nsightflow(*args: str) -> subprocess.CompletedProcess:
    proc = run_cli(*args)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc


def build_and_verify(kernels: Path, family: str, variant: str, tmp: Path) -> dict:
    cubin, res, out = (
        tmp / f"{variant}.cubin",
        tmp / f"{variant}.res.json",
        tmp / f"{variant}.json",
    )
    common = [
        "--kernels-dir",
        str(kernels),
        "--family",
        family,
        "--variant",
        variant,
        "--cubin",
        str(cubin),
    ]
    nsightflow("compile", *common, "--resources", str(res))
    nsightflow("verify", *common, "--resources", str(res), "--out", str(out))
    return json.loads(out.read_text())


@pytest.mark.gpu
@pytest.mark.parametrize("variant", ["v0_naive", "v1_smem", "v2_coarsen2"])
def test_jacobi_variants_verify_on_the_gpu(variant, tmp_path):
    record = build_and_verify(ROOT / "kernels", "jacobi2d", variant, tmp_path)
    assert record["status"] == "ok", record["message"]
    sizes = {s["n"] for s in record["sizes"]}
    assert {257, 1000, 512, 2048, 16384} <= sizes  # odd sizes and the whole sweep
    assert max(s["rel_l2_error"] for s in record["sizes"]) < 1e-6


@pytest.mark.gpu
def test_fast_wrong_kernel_is_caught(tmp_path):
    record = build_and_verify(FAULTY, "faulty", "v1_wrong", tmp_path)
    assert record["status"] == "wrong"
    assert any(s["unwritten_or_nonfinite"] > 0 for s in record["sizes"])


def _verified_v0(tmp_path: Path) -> list[str]:
    """Stage arguments for the faulty family's v0, compiled and verified in tmp_path."""
    return [
        "--kernels-dir",
        str(FAULTY),
        "--family",
        "faulty",
        "--variant",
        "v0_naive",
        "--cubin",
        str(tmp_path / "v0_naive.cubin"),
        "--verify",
        str(tmp_path / "v0_naive.json"),
    ]


@pytest.mark.gpu
def test_timing_records_clocks_and_settles(tmp_path):
    build_and_verify(FAULTY, "faulty", "v0_naive", tmp_path)
    out = tmp_path / "time.json"
    nsightflow(
        "time",
        *_verified_v0(tmp_path),
        "--out",
        str(out),
    )
    record = json.loads(out.read_text())
    rows = record["rows"]
    assert [r["size"] for r in rows] == [1048576, 4194304]
    for r in rows:
        assert 0 < r["time_min_us"] <= r["time_median_us"] <= r["time_q3_us"]
        assert r["reps"] >= 30
        assert "sm_clock_mhz" in r["gpu_before"]
        # the samples the median came from, kept in whole nanoseconds (for compare)
        samples = [int(s) / 1000 for s in r["samples_ns"].split()]
        assert len(samples) == r["reps"]
        assert abs(statistics.median(samples) - r["time_median_us"]) < 0.001
    assert "faulty/v0_naive.cu" in record["source"]["files"]


@pytest.mark.ncu
def test_profile_one_launch_and_parse(tmp_path):
    build_and_verify(FAULTY, "faulty", "v0_naive", tmp_path)
    folder = tmp_path / "profile" / "jacobi2d"  # results/profile/<family>, as the rules
    nsightflow(
        "profile",
        *_verified_v0(tmp_path),
        "--out-dir",
        str(folder),
    )
    meta = json.loads((folder / "v0_naive" / "profile.json").read_text())
    assert meta["status"] == "ok" and meta["settings"]["clock_control"] == "none"
    source = tmp_path / "m.source.csv"
    nsightflow(
        "parse",
        str(folder / "v0_naive"),
        "-o",
        str(tmp_path / "m.csv"),
        "--source",
        str(source),
    )
    text = (tmp_path / "m.csv").read_text()
    assert "gpu__time_duration.sum" in text and "dram__bytes_read.sum" in text
    # the lean set samples warps per instruction, mapped to source lines
    samples = pd.read_csv(source)
    assert samples["samples"].sum() > 0
    code = (FAULTY / "faulty" / "v0_naive.cu").read_text().splitlines()
    assert samples["line"].between(1, len(code)).all()


@pytest.mark.ncu
def test_a_family_profiles_in_one_process_and_parses_per_variant(tmp_path):
    """Two variants share one ncu run and report; each parses to its own launches."""
    names = ["v0_naive", "v1_smem"]
    for name in names:
        build_and_verify(ROOT / "kernels", "jacobi2d", name, tmp_path)
    folder = tmp_path / "profile" / "jacobi2d"  # results/profile/<family>, as the rules
    nsightflow(
        "profile",
        "--family",
        "jacobi2d",
        "--variant",
        *names,
        "--cubin",
        *(str(tmp_path / f"{n}.cubin") for n in names),
        "--verify",
        *(str(tmp_path / f"{n}.json") for n in names),
        "--out-dir",
        str(folder),
    )
    shared = sorted(folder.glob("jacobi2d.*.ncu-rep"))
    assert len(shared) == 1  # one report for the family
    kernels = {}
    for name in names:
        meta = json.loads((folder / name / "profile.json").read_text())
        assert meta["status"] == "ok" and meta["run"]["variants"] == names
        assert {r["file"] for r in meta["reports"]} == {f"../{shared[0].name}"}
        out = tmp_path / f"{name}.csv"
        nsightflow("parse", str(folder / name), "-o", str(out))
        table = pd.read_csv(out)
        assert sorted(table["size"].unique()) == [2048, 8192]
        assert set(table["variant"]) == {name}
        kernels[name] = set(table["kernel"])
    assert kernels == {"v0_naive": {"jacobi2d_v0"}, "v1_smem": {"jacobi2d_v1"}}
