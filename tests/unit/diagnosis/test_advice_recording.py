"""What next on the bundled H200 recording: advice an author can act on.

No suggestion targets a library variant or asks for what the variant's SASS and
counters show it already does; every expected gain is above one and bounded by the
floor; SGEMM's best is its best hand-written kernel with the small-n grid fix;
reduction's best is told it is at its floor, not to use float4.
"""

import json

import pandas as pd
import pytest

from nsightflow.report.build import write_report
from recorded import KERNELS, analyze_measured


@pytest.fixture(scope="module")
def analysed(recording, tmp_path_factory):
    out = {}
    for family in ("sgemm", "reduction"):
        tmp = tmp_path_factory.mktemp(family)
        out[family] = analyze_measured(recording, family, KERNELS[family], tmp)
    return out


def _advice(folder):
    found = pd.read_csv(folder / "findings.csv")
    return found[(found["section"] == "advice") & (found["rule"] == "advice")]


def _variants(folder):
    ctx = json.loads((folder / "context.json").read_text())
    return {v["name"]: v for v in ctx["variants"]}


@pytest.mark.parametrize("family", ["sgemm", "reduction"])
def test_advice_is_for_owned_variants_above_one_and_bounded(analysed, family):
    advice, variants = _advice(analysed[family]), _variants(analysed[family])
    assert not advice.empty
    libraries = {name for name, v in variants.items() if v["library"]}
    assert libraries and not advice["variant"].isin(libraries).any()
    assert (advice["expected_gain"] > advice["threshold"]).all()
    assert (advice["threshold"] > 1).all()
    # bounded: never more than the time over the floor (ideal time + fixed cost)
    bound = advice["before"] / advice["after"]
    assert (advice["expected_gain"] <= bound * (1 + 1e-6)).all()


@pytest.mark.parametrize("family", ["sgemm", "reduction"])
def test_no_float4_for_a_kernel_whose_sass_loads_128_bits(analysed, family):
    advice, variants = _advice(analysed[family]), _variants(analysed[family])
    wide = {
        n
        for n, v in variants.items()
        if (v.get("compiler") or {}).get("ldg_bits") == 128
    }
    assert wide  # v6/v7 of SGEMM, v3/v4 of reduction
    told = advice[advice["variant"].isin(wide)]
    assert not told["message"].str.contains("float4").any(), told["message"].tolist()


def test_sgemm_best_is_its_own_kernel_with_the_small_n_grid_fix(analysed, tmp_path):
    folder = analysed["sgemm"]
    found = pd.read_csv(folder / "findings.csv")
    head = found[found["section"] == "headline"]
    assert head["variant"].tolist() == ["v7_double_buffer"]
    grid = _advice(folder)
    grid = grid[
        (grid["variant"] == "v7_double_buffer") & (grid["metric"] == "grid_too_small")
    ]
    at_1024 = grid[grid["size"] == 1024]
    assert len(at_1024) == 1
    assert "64 blocks for 132 SMs" in at_1024["message"].iloc[0]
    assert set(grid["size"]) == {256, 512, 1024}  # every size below a full wave
    md = _brief(folder, tmp_path)
    assert "`v7_double_buffer` is the fastest correct variant" in md
    assert "library variant `v8_torch_matmul` is the line to reach" in md
    assert "64 blocks for 132 SMs" in md and "split the k loop" in md
    assert "Attack" not in md and "in `v8_torch_matmul`" not in md


def test_reduction_best_is_at_its_floor_not_told_to_use_float4(analysed, tmp_path):
    advice = _advice(analysed["reduction"])
    assert advice[advice["variant"] == "v4_vec4_atomic"].empty
    md = _brief(analysed["reduction"], tmp_path)
    assert "Nothing left to gain inside `v4_vec4_atomic`" in md
    assert "float4" not in md


def _brief(folder, tmp_path):
    out = tmp_path / "report"
    write_report(folder, tmp_path / "figures", out)
    md = (out / "report.md").read_text()
    return md.split("## 1.")[0]
