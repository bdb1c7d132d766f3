"""On a GPU machine with PyTorch, Triton and CuPy: Python launchers on real frameworks.

Marked gpu / ncu (skipped visibly elsewhere); each framework test also skips where its
framework is not installed. Run on the H200 with `pytest tests/gpu/test_pylaunch_gpu.py`.
"""

import itertools
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_run import nsightflow

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ROOT / "kernels"


def _stage(*args: str) -> None:
    proc = nsightflow(*args)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def _verified(family: str, variant: str, tmp: Path) -> list[str]:
    """Compile and verify one variant; the stage arguments that name it."""
    common = ["--kernels-dir", str(KERNELS), "--family", family]
    common += ["--variant", variant, "--cubin", str(tmp / f"{variant}.cubin")]
    res, out = tmp / f"{variant}.res.json", tmp / f"{variant}.verify.json"
    _stage("compile", *common, "--resources", str(res))
    _stage("verify", *common, "--resources", str(res), "--out", str(out))
    record = json.loads(out.read_text())
    assert record["status"] == "ok", record["message"]
    return [*common, "--verify", str(out)]


@pytest.mark.gpu
@pytest.mark.parametrize("framework", ["torch", "cupy"])
def test_frameworks_write_into_nsightflows_buffers_without_a_copy(framework):
    module = pytest.importorskip(framework)
    from nsightflow.gpu.launch import GpuContext
    from nsightflow.gpu.pylaunch import DeviceArray

    with GpuContext() as gpu:
        alloc = gpu.cuda.mem_alloc(4 * 1000)
        shared = DeviceArray("y", alloc, (1000,), "float32")
        if framework == "torch":
            view = module.as_tensor(shared, device="cuda")
            view.copy_(module.arange(1000, device="cuda", dtype=module.float32))
            address = view.data_ptr()
            module.cuda.synchronize()
        else:
            view = module.asarray(shared)
            view[...] = module.arange(1000, dtype=module.float32)
            address = view.data.ptr
            module.cuda.Device().synchronize()
        host = np.empty(1000, np.float32)
        gpu.cuda.memcpy_dtoh(host, alloc)
        alloc.free()
    assert address == shared.ptr
    np.testing.assert_array_equal(host, np.arange(1000, dtype=np.float32))


@pytest.mark.gpu
def test_a_launchers_time_is_the_whole_call_between_two_events(tmp_path):
    """nsightflow's median of torch.matmul agrees with torch's own CUDA events."""
    torch = pytest.importorskip("torch")
    stage = _verified("sgemm", "v8_torch_matmul", tmp_path)
    out = tmp_path / "time.json"
    _stage("time", *stage, "--out", str(out), "--budget-s", "0.3")
    rows = {r["size"]: r for r in json.loads(out.read_text())["rows"]}
    assert all(r["status"] == "ok" and r["reps"] >= 30 for r in rows.values())
    torch.backends.cuda.matmul.allow_tf32 = False
    a, b = (torch.rand(2048, 2048, device="cuda") for _ in range(2))
    c = torch.empty_like(a)
    for _ in range(5):
        torch.matmul(a, b, out=c)
    events = [torch.cuda.Event(enable_timing=True) for _ in range(21)]
    events[0].record()
    for event in events[1:]:
        torch.matmul(a, b, out=c)
        event.record()
    torch.cuda.synchronize()
    theirs = np.median(
        [x.elapsed_time(y) * 1000 for x, y in itertools.pairwise(events)]
    )
    # same call, same events, another process and moment: within 25 %
    assert rows[2048]["time_median_us"] == pytest.approx(theirs, rel=0.25)


@pytest.mark.ncu
def test_the_triton_kernel_is_profiled_by_its_own_name(tmp_path):
    pytest.importorskip("triton")
    stage = _verified("vecadd", "v4_triton", tmp_path)
    folder = tmp_path / "profile"
    _stage("profile", *stage, "--out-dir", str(folder))
    meta = json.loads((folder / "v4_triton" / "profile.json").read_text())
    assert meta["status"] == "ok", meta["message"]
    assert "--profile-from-start" in meta["reports"][0]["argv"]
    metrics = tmp_path / "m.csv"
    _stage("parse", str(folder / "v4_triton"), "-o", str(metrics))
    table = pd.read_csv(metrics)
    # only the profiled call: one launch at the one profile size, the warm-up left out
    assert set(table["kernel"]) == {"vecadd_triton"}
    assert set(table["size"]) == {16777216}
    assert set(table["launch"]) == {0}
    assert "gpu__time_duration.sum" in set(table["metric"])
