"""Advice on the replayed SGEMM recording where a grid, a register cap or a shared
configuration decides what the author can act on; every expected value is read from
analysis.csv, the kernel sources and tuned.yaml here, never from the code under test.

- at n = 1024, v5-v7 launch 64 blocks on 132 SMs: an SM holds one block or none,
  so capping registers raises no occupancy, and a per-SM share (issue slots at 75%
  over the busy SMs' cycles) is not what limits the launch;
- v4 spills with 32 registers under ``__launch_bounds__(THREADS)`` at 1,024
  threads, which allow 64: relaxing the bounds cannot remove its spills;
- v5 runs at BM 64 -> 128, BN 64 -> 128 and TM 4 -> 8 against v4 (tuned.yaml): all
  three are the configuration the step also changed.
"""

import json
import re

import pandas as pd
import pytest
import yaml

from recorded import ROOT, analysed_families


@pytest.fixture(scope="module")
def sgemm(recording, tmp_path_factory):
    return analysed_families(recording, ("sgemm",), tmp_path_factory)["sgemm"]


def _advice(folder):
    found = pd.read_csv(folder / "findings.csv")
    return found[(found["section"] == "advice") & (found["rule"] == "advice")]


def _sub_wave(folder):
    """(variant, size) of the profiled launches with fewer blocks than SMs, < 1 wave."""
    t = pd.read_csv(folder / "analysis.csv")
    few = t[(t["grid_blocks"] < t["sm_count"]) & (t["waves_per_sm"] < 1)]
    return {(r["variant"], int(r["size"])): r for _, r in few.iterrows()}


def test_no_occupancy_advice_and_no_per_sm_limiter_on_a_sub_wave_grid(sgemm):
    few = _sub_wave(sgemm)
    assert ("v7_double_buffer", 1024) in few and ("v5_regblock2d", 1024) in few
    told = 0
    for _, r in _advice(sgemm).iterrows():
        if (r["variant"], int(r["size"])) not in few:
            continue
        told += 1
        text = r["message"]
        assert r["metric"] != "low_occupancy", text
        assert "maxrregcount" not in text, text
        assert "pct_of_peak_sustained_active" not in text, text  # busy SMs only
    assert told  # the grid itself is still advised there


def test_gains_at_one_sub_wave_size_stay_within_the_floor(sgemm):
    few = _sub_wave(sgemm)
    advice = _advice(sgemm)
    t = pd.read_csv(sgemm / "analysis.csv").set_index(["variant", "size"])
    for (variant, size), r in few.items():
        here = advice[(advice["variant"] == variant) & (advice["size"] == size)]
        if here.empty:
            continue
        fastest = t.xs(size, level="size")["time_median_us"].min()
        total = here["expected_gain"].prod()
        assert total <= r["time_median_us"] / fastest * 1.001, (variant, size)


def test_relaxing_launch_bounds_is_offered_only_where_they_bind(sgemm):
    ctx = json.loads((sgemm / "context.json").read_text())
    found = pd.read_csv(sgemm / "findings.csv")
    v4 = next(v for v in ctx["variants"] if v["name"] == "v4_regblock1d")
    source = (ROOT / v4["source"]).read_text()
    bounds = re.search(r"__launch_bounds__\((\w+)\)", source)
    assert bounds and bounds.group(1) == "THREADS"  # one argument: no minimum
    p = v4["params"]
    threads = p["BM"] * p["BN"] // p["TM"]  # THREADS = BM * BN / TM
    assert threads == v4["block"][0] == 1024
    allowed = 65536 // threads // 8 * 8
    used = v4["resources"]["registers"]
    assert v4["resources"]["spill_store_bytes"] and used < allowed
    spills = found[
        (found["variant"] == "v4_regblock1d") & found["rule"].str.startswith("spills")
    ]
    assert not spills.empty
    for text in spills["message"]:
        assert "relax __launch_bounds__" not in text, text
        assert f"{used} registers, under the {allowed}" in text, text


def test_every_shared_parameter_the_step_changed_is_listed(sgemm):
    tuned = yaml.safe_load((ROOT / "kernels" / "sgemm" / "tuned.yaml").read_text())
    runs = tuned["gpus"]["NVIDIA H200"]
    before, after = runs["v4_regblock1d"]["params"], runs["v5_regblock2d"]["params"]
    changed = [k for k in before if k in after and before[k] != after[k]]
    assert changed == ["BM", "BN", "TM"]  # 64x64, TM 4 -> 128x128, TM 8
    found = pd.read_csv(sgemm / "findings.csv")
    said = found[(found["variant"] == "v5_regblock2d")
                 & (found["rule"] == "step_params_changed")]  # fmt: skip
    assert not said.empty
    for text in said["message"]:
        listed = re.search(r"share \(([^)]*)\)", text)
        assert listed, text
        moves = {}  # "BM, BN 64 -> 128, TM 4 -> 8": each parameter's move
        for names, a, b in re.findall(
            r"((?:[A-Z_]+, )*[A-Z_]+) (\w+) -> (\w+)", listed[1]
        ):
            moves.update({k: (a, b) for k in names.split(", ")})
        assert moves == {k: (str(before[k]), str(after[k])) for k in changed}, text
