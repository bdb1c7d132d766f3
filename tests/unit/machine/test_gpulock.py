"""One GPU job per GPU on a workstation: the per-device lock, on fake devices.

The jobs are small Python processes started through `nsightflow gpu-lock` that record
when they ran and which device they were given; nothing here needs a GPU.
"""

import itertools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nsightflow.errors import GpuUnavailableError
from nsightflow.machine.gpulock import candidates, lock_command, lock_dir

ROOT = Path(__file__).resolve().parents[3]
JOB = """
import json, os, sys, time
start = time.time()
time.sleep(float(sys.argv[2]))
record = {"start": start, "end": time.time(),
          "device": os.environ["CUDA_VISIBLE_DEVICES"],
          "order": os.environ["CUDA_DEVICE_ORDER"]}
open(sys.argv[1], "w").write(json.dumps(record))
"""


def _job(tmp_path: Path, name: str, devices: list[str], hold_s: float):
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CUDA_VISIBLE_DEVICES", "SLURM_JOB_ID", "NSIGHTFLOW_GPU_LOCK")
    }
    argv = [sys.executable, "-m", "nsightflow", "gpu-lock", "--devices", *devices]
    argv += ["--lock-dir", str(tmp_path / "locks"), "--"]
    argv += [sys.executable, "-c", JOB, str(tmp_path / f"{name}.json"), str(hold_s)]
    return subprocess.Popen(argv, env=env, cwd=ROOT, stderr=subprocess.PIPE, text=True)


def _run_jobs(tmp_path: Path, n: int, devices: list[str], hold_s: float) -> list:
    procs = [_job(tmp_path, f"job{i}", devices, hold_s) for i in range(n)]
    for proc in procs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    return [json.loads((tmp_path / f"job{i}.json").read_text()) for i in range(n)]


def test_jobs_on_one_fake_gpu_never_overlap(tmp_path):
    jobs = sorted(_run_jobs(tmp_path, 3, ["0"], 0.5), key=lambda j: j["start"])
    assert {j["device"] for j in jobs} == {"0"}
    assert {j["order"] for j in jobs} == {"PCI_BUS_ID"}
    for a, b in itertools.pairwise(jobs):
        assert b["start"] >= a["end"], (a, b)


def test_jobs_on_two_fake_gpus_run_in_parallel_on_different_devices(tmp_path):
    a, b = _run_jobs(tmp_path, 2, ["0", "1"], 3.0)
    assert {a["device"], b["device"]} == {"0", "1"}
    assert a["start"] < b["end"] and b["start"] < a["end"]  # at the same time


def test_a_killed_job_releases_its_gpu(tmp_path):
    holder = _job(tmp_path, "holder", ["0"], 600)
    lock = next(iter((tmp_path / "locks").rglob("*.lock")), None)
    deadline = time.monotonic() + 60
    while lock is None and time.monotonic() < deadline:  # wait until it holds GPU 0
        time.sleep(0.1)
        lock = next(iter((tmp_path / "locks").rglob("*.lock")), None)
    time.sleep(0.5)
    holder.send_signal(signal.SIGKILL)
    holder.communicate(timeout=30)
    (job,) = _run_jobs(tmp_path, 1, ["0"], 0.0)
    assert job["device"] == "0"


def test_candidates_follow_config_then_slurm_then_nvml():
    assert candidates(["2", "3"], {}, 8) == ["2", "3"]
    assert candidates([], {}, 4) == ["0", "1", "2", "3"]
    assert candidates([], {}, None) == ["0"]  # no NVML: one device, one lock
    # the GPUs the run was started with (SLURM, or the user)
    assert candidates([], {"CUDA_VISIBLE_DEVICES": "1,3"}, 8) == ["1", "3"]
    slurm = {"CUDA_VISIBLE_DEVICES": "1", "SLURM_JOB_ID": "42"}
    assert candidates(["0", "1"], slurm, 8) == ["1"]  # never beyond SLURM's
    with pytest.raises(GpuUnavailableError, match="none of the GPUs SLURM gave"):
        candidates(["0"], slurm, 8)
    with pytest.raises(GpuUnavailableError, match=r"gpus\.devices"):
        candidates(["0; rm -rf ~"], {}, 8)


def test_slurm_jobs_lock_in_a_folder_of_their_own(tmp_path):
    here = lock_dir(str(tmp_path), {})
    job = lock_dir(str(tmp_path), {"SLURM_JOB_ID": "7", "CUDA_VISIBLE_DEVICES": "0"})
    assert job.parent == here and job.name == "slurm-job-7"


def test_lock_command_quotes_nothing_into_a_shell():
    assert lock_command({}) == ["python", "-m", "nsightflow", "gpu-lock", "--"]
    argv = lock_command({"devices": [0, "GPU-ab12"], "lock_dir": "/a b"})
    assert argv[4:] == ["--devices", "0", "GPU-ab12", "--lock-dir", "/a b", "--"]
