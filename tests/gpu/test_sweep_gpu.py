"""A sweep on the GPU itself (marked; `pytest -m gpu` on the GPU machine): the sweepy
test family's every failure recorded with its reason, the correct configurations timed."""

import json

import pytest
from test_gpu import FAULTY, nsightflow


@pytest.mark.gpu
def test_a_sweep_records_every_failure_and_times_the_rest(tmp_path):
    args = ["--kernels-dir", str(FAULTY), "--family", "sweepy", "--variant", "v0_modes"]
    compiled, build = tmp_path / "compile.json", tmp_path / "build"
    nsightflow(
        "sweep-compile",
        *args,
        "--space",
        "full",
        "--jobs",
        "4",
        "--build-dir",
        str(build),
        "--out",
        str(compiled),
    )
    out = tmp_path / "sweep.json"
    sweep = [
        "sweep",
        *args,
        "--compiled",
        str(compiled),
        "--build-dir",
        str(build),
        "--cache",
        str(tmp_path / "cache.jsonl"),
        "--out",
        str(out),
    ]
    nsightflow(*sweep, "--config-timeout-s", "10")
    record = json.loads(out.read_text())
    status = {c["id"]: c["status"] for c in record["configs"]}
    assert status == {
        **{k: "constraint" for k, v in status.items() if v == "constraint"},
        "BLOCK128_MODE0": "ok",
        "BLOCK256_MODE0": "ok",
        "BLOCK256_MODE1": "wrong_result",
        "BLOCK256_MODE2": "compile_failed",
        "BLOCK256_MODE3": "launch_failed",  # illegal address: the process restarted
        "BLOCK256_MODE4": "launch_failed",  # hung: killed after 10 s
        "BLOCK256_MODE5": "too_much_shared_memory",
        "BLOCK256_MODE6": "launch_failed",  # 64 KB of dynamic shared memory
        "BLOCK2048_MODE0": "too_many_threads",
    }
    assert record["restarts"] == 2 and record["best"]["id"].endswith("_MODE0")
    # run again: everything comes from the cache, nothing restarts
    nsightflow(*sweep, "--config-timeout-s", "10")
    again = json.loads(out.read_text())
    # the six configurations that compiled (two ok, one wrong, three launch failures)
    assert again["resumed"] == 6 and again["restarts"] == 0
    assert again["best"] == record["best"]
