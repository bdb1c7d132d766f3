"""On a GPU machine: nsightflow.api.measure through the real stages (marked gpu/ncu).

Run on the H200 with `pytest tests/gpu/test_api_gpu.py`; skipped visibly elsewhere.
"""

from pathlib import Path

import pytest

import nsightflow.api as nf

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.ncu
def test_measure_a_cuda_and_a_triton_variant_from_python(tmp_path):
    pytest.importorskip("triton")
    options = nf.MeasureOptions(
        sanitize=False,
        ceilings=ROOT / "examples" / "h200" / "ceilings.json",
        report=False,
    )
    run = nf.measure(
        "vecadd",
        ["v3_float4", "v4_triton"],
        sizes=[1 << 20, 1 << 24],
        results=tmp_path / "results",
        kernels_dir=ROOT / "kernels",
        options=options,
    )
    ladder = run.ladder("vecadd").set_index("variant")
    assert ladder.loc[["v3_float4", "v4_triton"], "status"].tolist() == ["ok", "ok"]
    assert (ladder.loc[["v3_float4", "v4_triton"], "time_median_us"] > 0).all()
    # the variants not chosen are shown as such, not measured
    assert ladder.loc["v0_one_per_thread", "status"] == "not_recorded"
    summary = run.summary("vecadd")
    assert set(summary.dropna(subset=["time_median_us"])["size"]) == {1 << 20, 1 << 24}
    metrics = run.metrics("vecadd")
    assert set(metrics["variant"]) == {"v3_float4", "v4_triton"}
    assert "vecadd_triton" in set(metrics["kernel"])
    assert len(run.findings("vecadd"))
