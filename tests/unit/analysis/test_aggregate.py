"""Launches of a multi-kernel run combined per metric; single launches untouched."""

import pandas as pd
import pytest

from nsightflow.analysis.analyze import stall_frame, wide_metrics
from nsightflow.analysis.launches import aggregate_launches, launch_table
from nsightflow.tools import ncu_metrics as M


def _rows(variant: str, launch: int, kernel: str, values: dict[str, float]):
    return [
        {
            "family": "f",
            "variant": variant,
            "size": 1024,
            "launch": launch,
            "kernel": kernel,
            "metric": metric,
            "unit": "",
            "value": value,
            "rollup": "",
        }
        for metric, value in values.items()
    ]


STALL = M.stall_metric("long_scoreboard")
MAIN = {
    M.TIME: 3000.0,
    M.DRAM_READ: 4e6,
    M.INST_EXECUTED: 900.0,
    M.THREADS_PER_INST: 30.0,
    M.LANES_PER_INST: 24.0,
    M.ACHIEVED_OCCUPANCY: 60.0,
    M.REGISTERS: 32.0,
    STALL: 10.0,
}
FINISH = {
    M.TIME: 1000.0,
    M.DRAM_READ: 1e6,
    M.INST_EXECUTED: 100.0,
    M.THREADS_PER_INST: 10.0,
    M.LANES_PER_INST: 8.0,
    M.ACHIEVED_OCCUPANCY: 20.0,
    M.REGISTERS: 16.0,
    STALL: 30.0,
}


def _long() -> pd.DataFrame:
    return pd.DataFrame(
        _rows("v1_two", 0, "main", MAIN)
        + _rows("v1_two", 1, "finish", FINISH)
        + _rows("v0_one", 0, "k", MAIN)
    )


def test_counts_add_ratios_weight_attributes_come_from_the_main_kernel():
    out = aggregate_launches(_long())
    two = out[out["variant"] == "v1_two"].set_index("metric")
    assert len(two) == len(MAIN) and set(two["launch"]) == {0}
    assert two.loc[M.TIME, "value"] == 4000.0
    assert two.loc[M.DRAM_READ, "value"] == 5e6
    # per issued instruction: (30 * 900 + 10 * 100) / 1000
    assert two.loc[M.THREADS_PER_INST, "value"] == pytest.approx(28.0)
    assert two.loc[STALL, "value"] == pytest.approx(12.0)
    # percentages by duration: (60 * 3000 + 20 * 1000) / 4000
    assert two.loc[M.ACHIEVED_OCCUPANCY, "value"] == pytest.approx(50.0)
    assert two.loc[M.REGISTERS, "value"] == 32.0
    assert two.loc[M.TIME, "kernel"] == "main+finish"


def test_single_launch_runs_pass_through_unchanged():
    long = _long()
    single = long[long["variant"] == "v0_one"].reset_index(drop=True)
    assert aggregate_launches(single) is single
    out = aggregate_launches(long)
    kept = out[out["variant"] == "v0_one"].reset_index(drop=True)
    pd.testing.assert_frame_equal(kept, single)


def test_analysis_columns_and_stalls_use_the_whole_run():
    wide = wide_metrics(_long()).set_index("variant")
    assert wide.loc["v1_two", "ncu_time_ns"] == 4000.0
    # (24 * 900 + 8 * 100) / 1000 = 22.4 of 32 lanes
    assert wide.loc["v1_two", "lane_efficiency_pct"] == pytest.approx(70.0)
    assert wide.loc["v0_one", "lane_efficiency_pct"] == pytest.approx(75.0)
    stalls = stall_frame(_long()).set_index("variant")
    assert stalls.loc["v1_two", "cycles"] == pytest.approx(12.0)


def test_launch_table_lists_each_launch_of_multi_kernel_runs_only():
    table = launch_table(_long())
    assert set(table) == {"v1_two"}
    main, finish = table["v1_two"]["1024"]
    assert (main["kernel"], finish["kernel"]) == ("main", "finish")
    assert main["time_us"] == 3.0 and main["time_share"] == 0.75
    assert finish["dram_bytes"] == 1e6
