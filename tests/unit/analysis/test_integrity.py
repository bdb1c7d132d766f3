"""Numbers that guard themselves: planted cases for each integrity check.

Floors are worked out here from the manifest's formulas and the recorded ceilings
(vecadd: 12 bytes per element; the H200's copy bandwidth 4,252 GB/s), never read from
the code under test.
"""

import json
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import recorded
from nsightflow.analysis import integrity
from nsightflow.gpu.verify import compare
from recorded import analyze

ROOT = Path(__file__).resolve().parents[3]
RECORDING = ROOT / "examples" / "h200"
CEILINGS = json.loads((RECORDING / "ceilings.json").read_text())
COPY = CEILINGS["copy_gbps"]  # 4252.2 GB/s
N = 16_777_216
FLOOR_US = 12 * N / (COPY * 1e3)  # 47.35 us: vecadd's bytes at the copy bandwidth
recorded.KERNELS.setdefault("vecadd", ROOT / "kernels")


def _planted(tmp_path: Path, variant: str, median_us: float) -> Path:
    """The recording's vecadd, with ``variant`` timed at ``median_us`` at n = 2^24."""
    rec = tmp_path / "rec"
    for kind in ("build", "verify", "time", "profile"):
        shutil.copytree(RECORDING / kind / "vecadd", rec / kind / "vecadd")
    for name in ("ceilings.json", "recording.json"):
        shutil.copy2(RECORDING / name, rec / name)
    path = rec / "time" / "vecadd" / f"{variant}.json"
    record = json.loads(path.read_text())
    for row in record["rows"]:
        if row["size"] == N:
            scale = median_us / row["time_median_us"]
            for key in [k for k in row if k.startswith("time_") and k.endswith("_us")]:
                row[key] *= scale
            row.pop("samples_ns", None)
    path.write_text(json.dumps(record))
    return analyze(rec, "vecadd", tmp_path)


def test_a_time_faster_than_the_familys_floor_leaves_the_ranking(tmp_path):
    out = _planted(tmp_path, "v3_float4", 40.0)  # 1.18x faster than the floor
    a = pd.read_csv(out / "analysis.csv").set_index(["variant", "size"])
    row = a.loc[("v3_float4", N)]
    assert row["status"] == "faster_than_floor"
    assert "bytes at the measured copy bandwidth" in row["message"]
    assert f"{FLOOR_US:.3g} us" in row["message"]
    assert np.isnan(row["rank"]) and np.isnan(row["speedup_vs_baseline"])
    others = a.xs(N, level="size")
    ranked = others[others["status"] == "ok"]["rank"]
    assert sorted(ranked) == list(range(1, len(ranked) + 1))  # the rest still ranked
    assert a.loc[("v3_float4", 4 * N), "status"] == "ok"  # its other sizes stand
    found = pd.read_csv(out / "integrity.csv")
    hit = found[found["rule"] == "faster_than_floor"]
    assert hit[["variant", "size"]].values.tolist() == [["v3_float4", N]]


def test_a_time_just_above_the_floor_stands(tmp_path):
    out = _planted(tmp_path, "v3_float4", FLOOR_US / 1.04)  # 104% of the copy rate
    a = pd.read_csv(out / "analysis.csv").set_index(["variant", "size"])
    assert a.loc[("v3_float4", N), "status"] == "ok"


def test_the_flop_floor_counts_too():
    row = {"time_median_us": 100.0, "gbps": 1.0, "gflops": 2 * 64440.0}
    floor, which = integrity.floor_us(row, CEILINGS)
    assert floor == pytest.approx(100.0 * 2 * 64440.0 / CEILINGS["fp32_gflops"])
    assert which == "FLOPs at the measured FP32 peak"


def test_outputs_that_change_after_timing_are_flagged_and_unranked():
    ref = np.linspace(1, 2, 1000).astype(np.float32)
    same = integrity.recheck_record({"c": compare(ref.copy(), ref.astype(float), 1e-6)})
    assert same["status"] == "ok"
    drifted = integrity.recheck_record(
        {"c": compare(ref + 1, ref.astype(np.float64), 1e-6)}
    )
    assert drifted["status"] == "changed_after_timing"
    counts = np.arange(10, dtype=np.int32)
    wrong = counts.copy()
    wrong[3] += 1
    exact = integrity.recheck_record({"h": compare(wrong, counts.astype(float), 0.0)})
    assert exact["status"] == "changed_after_timing"  # integers: exactly
    frame = pd.DataFrame(
        {
            "family": "f",
            "variant": ["a", "b"],
            "size": [8, 8],
            "status": ["ok", "ok"],
            "message": ["", ""],
            "time_median_us": [5.0, 6.0],
            "recheck_status": ["changed_after_timing", "ok"],
            "recheck_message": [drifted["message"], ""],
        }
    )
    checked = integrity.apply(frame, {})
    assert checked["status"].tolist() == ["changed_after_timing", "ok"]
    assert "differs from the one before them" in checked.loc[0, "message"]


def _timed(ncu: float, median: float, iqr: float) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "family": ["f"],
            "variant": ["v"],
            "size": [8],
            "status": ["ok"],
            "ncu_time_us": [ncu],
            "time_median_us": [median],
            "time_iqr_us": [iqr],
        }
    )


def test_ncu_and_events_beyond_their_noise_are_flagged():
    # noise: 3 x 1 us IQR + 5 us of launch gaps + 1% of 100 us = 9 us
    assert len(integrity.event_ncu(_timed(88.0, 100.0, 1.0))) == 1  # 12 us apart
    assert integrity.event_ncu(_timed(92.0, 100.0, 1.0)).empty  # 8 us apart
    assert integrity.event_ncu(_timed(84.0, 100.0, 4.0)).empty  # 16 apart, noise 18
    found = integrity.findings(_timed(88.0, 100.0, 1.0))
    assert found["rule"].tolist() == ["event_ncu_disagree"]
    assert found["threshold"].iloc[0] == pytest.approx(9.0)


def test_clocks_throttle_reasons_and_other_processes_are_summarised():
    frame = pd.DataFrame(
        {
            "sm_clock_mhz_before": [1980, 1980],
            "sm_clock_mhz_after": [1980, 1755],
            "mem_clock_mhz_before": [3201, 3201],
            "mem_clock_mhz_after": [3201, 3201],
            "throttle_reasons": [0, 0x4 | 0x20],
            "other_processes": [0, 1],
        }
    )
    state = integrity.gpu_state(frame)
    assert state == {
        "runs": 2,
        "sm_mhz": (1755.0, 1980.0),
        "mem_mhz": (3201.0, 3201.0),
        "sm_drop_mhz": 225.0,
        "reasons": "sw_power_cap, sw_thermal_slowdown",
        "other_processes": 1,
    }
    assert integrity.gpu_state(frame.iloc[:0]) is None
