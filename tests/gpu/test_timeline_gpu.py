"""On a GPU machine: the timeline stage records real copies, memset and kernel with
CUPTI (marked gpu; skipped visibly where no GPU or no cupti-python is present)."""

import importlib.util
import json

import pandas as pd
import pytest
from test_gpu import ROOT, build_and_verify, nsightflow

needs_cupti = pytest.mark.skipif(
    importlib.util.find_spec("cupti") is None,
    reason="cupti-python not installed (pip install cupti-python)",
)


@pytest.mark.gpu
@needs_cupti
def test_cupti_traces_copy_in_memset_kernel_copy_out(tmp_path):
    assert (
        build_and_verify(ROOT / "kernels", "jacobi2d", "v0_naive", tmp_path)["status"]
        == "ok"
    )
    choice = tmp_path / "backend.json"
    nsightflow("timeline-backend", "--backend", "cupti", "--out", str(choice))
    out, table = tmp_path / "tl.json", tmp_path / "tl.csv"
    nsightflow(
        "timeline", "--family", "jacobi2d", "--variant", "v0_naive",
        "--cubin", str(tmp_path / "v0_naive.cubin"),
        "--verify", str(tmp_path / "v0_naive.json"), "--backend-choice", str(choice),
        "--sizes", "1024", "--out", str(out), "--table", str(table),
    )  # fmt: skip
    record = json.loads(out.read_text())
    assert record["status"] == "ok" and record["backend"] == "cupti", record
    rows = pd.read_csv(table)
    assert list(rows["kind"]) == ["memcpy_htod", "memset", "kernel", "memcpy_dtoh"]
    copies = rows[rows["kind"].str.startswith("memcpy")]
    assert set(copies["bytes"]) == {4 * 1024 * 1024}
    assert rows.loc[rows["kind"] == "kernel", "name"].item() == "jacobi2d_v0"
    assert (rows["end_ns"] > rows["start_ns"]).all()
    assert rows["start_ns"].is_monotonic_increasing
