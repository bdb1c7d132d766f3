"""Constructed launches for the diagnosis tests: rows of the analysis table by hand.

On pytest's path (pyproject `pythonpath = ["tests"]`): `from constructed import launch`.
"""

import math

NAN = math.nan


def launch(**kw):
    """A profiled launch whose counts explain its time: I x CPI / (W x S x f) = 118 us."""
    base = {
        "variant": "v1",
        "size": 1024,
        "profiled": True,
        "regime": "latency",
        "ncu_time_us": 120.0,
        "time_median_us": 120.0,
        "inst_executed": 1e8,
        "cycles_per_issue": 10.0,
        "achieved_occupancy_pct": 50.0,
        "theoretical_occupancy_pct": 100.0,
        "max_warps_per_sm": 64.0,
        "sm_hz": 2e9,
        "sm_count": 132.0,
        "stall_long_scoreboard": 6.0,
        "stall_lg_throttle": 1.0,
        "stall_mio_throttle": 1.0,
        "stall_barrier": 0.0,
        "stall_math_pipe_throttle": 0.0,
        "stall_not_selected": 0.5,
        "stall_drain": 0.5,
        "waves_per_sm": 10.0,
        "sectors_per_request": 4.0,
        "global_ld_sectors": 4e6,
        "global_st_sectors": 1e6,
        "global_ld_requests": 1e6,
        "ideal_bytes": 1e8,
        "dram_bytes": 1e8,
        "pct_of_copy_bw": 50.0,
        "issue_pct": 30.0,
        "fma_pct": 5.0,
    }
    base.update(kw)
    return base
