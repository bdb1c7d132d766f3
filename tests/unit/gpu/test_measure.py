"""The measure job on CPU: phases, isolation, records (fake pycuda and NVML).

The worker runs for real in its own process; pycuda, NVML and nvcc are the CPU
stand-ins in tests/unit (a launch takes 14 us on a fake clock, the energy counter
steps at a fake 250 W): the numbers here check the plumbing, never a measurement.
"""

import json
import os
from pathlib import Path

import pytest

from cli_run import nsightflow
from nsightflow.gpu import isolate
from nsightflow.gpu.measure import _traced_ok
from nsightflow.io import write_json

ROOT = Path(__file__).resolve().parents[3]
UNIT = ROOT / "tests" / "unit"


def test_phases_keep_what_finished_before_a_crash():
    spec = {"phases": {"verify": "ok", "time": "crash", "timeline": "ok"}}
    results, seconds = isolate.run_phases(
        "selftest-phases", spec, {"verify": 60, "time": 60, "timeline": 60}
    )
    assert results["verify"]["message"] == "verify"
    assert results["time"]["status"] == "crashed"
    assert "during time" in results["time"]["message"]
    assert "timeline" not in results  # left for a fresh process
    assert set(seconds) == {"start", "verify"}


def test_a_hanging_phase_is_killed_at_its_own_limit():
    spec = {"phases": {"verify": "ok", "time": "hang"}}
    results, _ = isolate.run_phases("selftest-phases", spec, {"verify": 60, "time": 2})
    assert results["verify"]["status"] == "ok"
    assert results["time"]["status"] == "timeout"
    assert "within 2 s" in results["time"]["message"]


def test_an_empty_or_crashed_trace_is_taken_again_alone_but_a_hang_is_kept():
    assert _traced_ok({"status": "ok", "sizes": [{"status": "ok"}]})
    assert not _traced_ok({"status": "ok", "sizes": [{"status": "trace_empty"}]})
    assert not _traced_ok({"status": "crashed", "message": "x"})
    assert _traced_ok({"status": "timeout", "message": "x"})


@pytest.fixture
def fake_gpu(monkeypatch):
    path = [UNIT / "fake_pycuda", UNIT / "fake_nvml", ROOT / "src"]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(str(p) for p in path))
    monkeypatch.setenv("PATH", f"{UNIT / 'fake_bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("TMPDIR", os.environ.get("TMPDIR", "/tmp"))


def _measure(tmp_path: Path, mode: int, *extra: str) -> dict[str, dict]:
    """``nsightflow measure`` of the faulty family's v0 with a fake cubin of MODE."""
    cubin = tmp_path / f"MODE{mode}.cubin"  # the fake kernel reads its mode here
    cubin.touch()
    write_json(tmp_path / "res.json", {"status": "ok", "message": ""})
    write_json(tmp_path / "backend.json", {"backend": None, "message": "none here"})
    kernels = ROOT / "tests/data/families"
    proc = nsightflow(
        "measure", "--kernels-dir", str(kernels), "--family", "faulty",
        "--variant", "v0_naive", "--cubin", str(cubin),
        "--resources", str(tmp_path / "res.json"),
        "--verify-out", str(tmp_path / "v.json"), "--time-out", str(tmp_path / "t.json"),
        "--reference-cache", str(tmp_path / "ref"), "--budget-s", "0.1",
        "--timeline-record", str(tmp_path / "tl.json"),
        "--timeline-table", str(tmp_path / "tl.csv"),
        "--backend-choice", str(tmp_path / "backend.json"), *extra,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return {
        k: json.loads((tmp_path / f"{k}.json").read_text()) for k in ("v", "t", "tl")
    }


def test_one_job_verifies_every_size_times_and_records_energy(tmp_path, fake_gpu):
    out = _measure(tmp_path, 0)
    verify, timing = out["v"], out["t"]
    assert verify["status"] == "ok"
    # every sweep size plus the odd verify sizes
    assert [s["n"] for s in verify["sizes"]] == [1000, 4096, 1048576, 4194304]
    assert set(verify["seconds"]) == {"start", "verify"}
    assert timing["status"] == "ok" and set(timing["seconds"]) == {"time"}
    for row in timing["rows"]:
        assert row["time_median_us"] == pytest.approx(14.0)  # the fake clock
        assert row["energy"]["status"] == "ok"
        # a fake launch here costs the CPU ms (reads of the counter are sparse), so
        # the fake 250 W comes back only roughly; test_energy checks the arithmetic
        assert 100 < row["energy_power_w"] < 600
        assert row["energy_j_per_launch"] == pytest.approx(
            row["energy_power_w"] * 14e-6
        )
        assert row["energy"]["gpu_after"]["sm_clock_mhz"] == 1980
        assert row["verified_after"]["status"] == "ok"  # same outputs after timing
    # the inputs and references were kept for the family's other variants
    assert len(list((tmp_path / "ref").glob("*/reference/outputs.json"))) == 4
    # no CUPTI or nsys here: the timeline says so, as its own stage did
    assert out["tl"]["status"] == "timeline_unavailable"


def test_a_kernel_that_changes_its_output_once_timed_is_caught(tmp_path, fake_gpu):
    out = _measure(tmp_path, 7)  # y = 2x + 1 for 16 launches, then y = 2x
    assert out["v"]["status"] == "ok"  # verified while right
    first = out["t"]["rows"][0]
    assert first["verified_after"]["status"] == "changed_after_timing"
    assert "differs from the one before them" in first["verified_after"]["message"]


def test_a_gpu_without_an_energy_counter_is_timed_and_says_not_recorded(
    tmp_path, fake_gpu, monkeypatch
):
    monkeypatch.setenv("FAKE_NVML_NO_ENERGY", "1")
    timing = _measure(tmp_path, 0)["t"]
    assert timing["status"] == "ok"
    for row in timing["rows"]:
        assert "energy_j_per_launch" not in row
        assert row["energy"]["status"] == "not_recorded"
        assert "no NVML total-energy counter" in row["energy"]["message"]


@pytest.mark.parametrize(
    ("mode", "status", "said"),
    [(1, "wrong", "relative L2 error"), (3, "crashed", "illegal memory access")],
)
def test_a_wrong_or_crashing_variant_is_not_timed(
    tmp_path, fake_gpu, mode, status, said
):
    out = _measure(tmp_path, mode)
    assert out["v"]["status"] == status and said in out["v"]["message"]
    assert out["t"]["status"] == status and out["t"]["skipped"] is True
    assert out["t"]["message"].startswith("time skipped: upstream status")
    assert out["tl"]["status"] == status  # the timeline reads the verify record


def test_the_helper_kernels_are_built_once(tmp_path, monkeypatch):
    calls = tmp_path / "calls"
    nvcc = tmp_path / "bin" / "nvcc"
    nvcc.parent.mkdir()
    nvcc.write_text(  # counts builds (not `nvcc --version`)
        f'#!/bin/sh\ncase "$*" in *-cubin*) echo x >> {calls};; esac\n'
        f'exec {UNIT / "fake_bin/nvcc"} "$@"\n'
    )
    nvcc.chmod(0o755)
    monkeypatch.setenv("PATH", f"{nvcc.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    monkeypatch.syspath_prepend(str(UNIT / "fake_pycuda"))
    from nsightflow.gpu.launch import GpuContext, load_helpers

    with GpuContext() as gpu:
        load_helpers(gpu)
        load_helpers(gpu)
    assert calls.read_text().count("x") == 1
    assert (
        len(list((tmp_path / "nsightflow-helpers").glob("helpers-*-sm_90.cubin"))) == 1
    )


def test_the_worker_traces_as_many_rounds_as_the_timeline_stage():
    from nsightflow.gpu.measure import TRACE_ROUNDS
    from nsightflow.gpu.timeline.driver import ROUNDS

    assert TRACE_ROUNDS == ROUNDS


def test_a_comparison_on_threads_says_what_one_thread_says(monkeypatch):
    import numpy as np

    from nsightflow.gpu import verify

    monkeypatch.setattr(verify, "_CHUNK", 1000)  # 40 chunks: four threads of ten
    ref = np.random.default_rng(3).random(40_000) + 1.0
    out = (ref * (1 + 1e-7)).astype(np.float32)
    out[25_001] = np.nan
    out[31_000] = 7.0
    one, four = verify.compare(out, ref, 1e-6, 1), verify.compare(out, ref, 1e-6, 4)
    assert len(verify._spans(ref.size, 4)) == 4
    assert four["rel_l2_error"] == one["rel_l2_error"] == float("inf")
    assert four["unwritten_or_nonfinite"] == one["unwritten_or_nonfinite"] == 1
    assert four["first_mismatch"]["index"] == one["first_mismatch"]["index"] == [25_001]
    assert (
        four["max_abs_error"]
        == one["max_abs_error"]
        == pytest.approx(7.0 - ref[31_000])
    )
    out[25_001] = ref[25_001]
    out[31_000] = ref[31_000]
    assert verify.compare(out, ref, 1e-6, 4)["rel_l2_error"] == pytest.approx(
        verify.compare(out, ref, 1e-6, 1)["rel_l2_error"], rel=1e-12
    )
