"""What next: suggestions bounded by a floor with the launch's fixed cost, never for a
library variant, never for a change the compiler facts show is already there."""

import math

import pandas as pd

from nsightflow.diagnosis.advice import already_done, fix_message
from nsightflow.diagnosis.record import render
from nsightflow.diagnosis.suggest import (
    Suggestion,
    fixed_cost,
    grid_blocks,
    grid_suggestion,
    noise,
    step_scores,
    variant_suggestions,
)

SGEMM = {"name": "sgemm", "flops": "2*n**3"}
V7 = {
    "name": "v7_double_buffer",
    "status": "ok",
    "grid": ["cdiv(n, BN)", "cdiv(n, BM)", "1"],
    "params": {"BM": 64, "BN": 256},
    "compiler": {},
}


def _row(**fields):
    base = {
        "variant": "v7_double_buffer",
        "status": "ok",
        "profiled": False,
        "time_iqr_us": 0.5,
    }
    return {**base, **fields}


def test_a_grid_of_64_blocks_on_132_sms_is_bounded_by_the_floor():
    # SGEMM v7 at n = 1024 on the H200: 100.4 us, 42.0 us at cuBLAS's rate; the
    # fixed cost 11.3 us makes the floor 53.3 us, under the SM bound 132 / 64
    row = _row(size=1024, time_median_us=100.4, roof_time_us=42.0, grid_blocks=64.0)
    found = grid_suggestion(row, V7, 132.0, 11.3, SGEMM)
    assert found is not None and found.kind == "grid_too_small"
    assert math.isclose(found.mechanism_gain, 132 / 64)
    assert math.isclose(found.gain, 100.4 / 53.3)
    text = render("advice", found.fix)
    assert "64 blocks for 132 SMs" in text
    assert "BM x BN = 64 x 256" in text and "split the k loop" in text


def test_a_grid_as_large_as_the_gpu_gets_no_grid_suggestion():
    row = _row(size=4096, time_median_us=2834.6, roof_time_us=2689.8, grid_blocks=1024)
    assert grid_suggestion(row, V7, 132.0, 11.3, SGEMM) is None


def test_the_grid_at_an_unprofiled_size_comes_from_the_manifest():
    # cdiv(512, 256) x cdiv(512, 64) = 2 x 8
    assert grid_blocks(_row(size=512), V7) == 16


def test_a_gain_inside_the_noise_is_not_suggested():
    # 2,834.6 us against a floor of 2,830 us: 1.002x, below 1 + 2%
    row = _row(size=4096, time_median_us=2834.6, roof_time_us=2818.7, grid_blocks=64)
    assert grid_suggestion(row, V7, 132.0, 11.3, SGEMM) is None
    assert noise({"time_median_us": 20.0, "time_iqr_us": 1.0}) == 1.05


def test_a_library_variant_gets_no_advice():
    rows = [_row(size=1024, time_median_us=63.8, roof_time_us=42.0, grid_blocks=8)]
    library = {**V7, "name": "v8_torch_matmul", "library": True}
    assert variant_suggestions(rows, library, 132.0, 11.3, SGEMM) == []
    assert variant_suggestions(rows, V7, 132.0, 11.3, SGEMM)


def test_float4_loads_in_flight_at_high_occupancy_are_already_done():
    # reduction v4_vec4_atomic: LDG.E.128, 4 global loads, 96% of warps resident
    compiled = {"ldg_bits": 128, "global_loads": 4}
    row = {"achieved_occupancy_pct": 96.5}
    assert already_done("bytes_in_flight", row, compiled)
    assert not already_done("bytes_in_flight", row, {"ldg_bits": 32, "global_loads": 4})
    low = {"achieved_occupancy_pct": 40.0}
    assert not already_done("bytes_in_flight", low, compiled)


def test_the_fixed_cost_is_the_smallest_sizes_best_launch_beyond_its_ideal_time():
    table = pd.DataFrame(
        {
            "variant": ["a", "b", "a", "b"],
            "size": [1, 1, 2, 2],
            "status": ["ok"] * 4,
            "time_median_us": [6.5, 9.0, 20.0, 30.0],
            "roof_time_us": [1.0, 1.0, 15.8, 15.8],
        }
    )
    assert fixed_cost(table) == 5.5


def test_a_local_array_and_compiler_aggregated_atomics_are_named_so():
    local = render(
        "advice",
        fix_message(
            "local_memory", {}, {"local": "local_array", "stack_frame_bytes": 128}
        ),
    )
    assert "128-byte stack frame" in local and "not a register spill" in local
    aggregated = render(
        "advice", fix_message("global_atomics", {}, {"atomics_aggregated": True})
    )
    assert "nvcc already sums each warp" in aggregated
    plain = render("advice", fix_message("global_atomics", {}, {}))
    assert "fewer atomics on the hot address" in plain


def _s(kind, gain):
    return Suggestion("v", 1, kind, gain, gain, 10.0, 5.0, 1.02)


def test_a_step_that_widened_the_loads_carried_out_more_bytes_in_flight():
    found, rank = step_scores(
        [_s("grid_too_small", 2.0), _s("bytes_in_flight", 1.1)], "wider_accesses"
    )
    assert found is not None and found.kind == "bytes_in_flight" and rank == 2
    assert step_scores([_s("bank_conflicts", 4.6)], "instruction_count") == (None, 0)


def test_an_atomic_hot_line_is_named_with_its_line_and_what_nvcc_did():
    from nsightflow.diagnosis.suggest import atomic_suggestion

    # every element added to one counter: line 6 holds 97% of the samples
    row = _row(size=1 << 24, time_median_us=400.0, roof_time_us=15.8)
    hot = {"line": 6, "share": 0.97, "access": "global_load;global_atomic"}
    found = atomic_suggestion(row, {"atomics": 1, "atomics_aggregated": True}, hot, 5.5)
    assert found is not None and found.kind == "hot_atomics"
    assert math.isclose(found.gain, 400.0 / 21.3)
    text = render("advice", found.fix)
    assert "line 6" in text and "few addresses" in text
    assert "nvcc already sums each warp" in text
    # a hot line that loads but makes no atomic is not this cause
    cold = {**hot, "access": "global_load"}
    assert atomic_suggestion(row, {"atomics": 1}, cold, 5.5) is None


def test_a_shuffle_after_nvccs_warp_sum_is_said_to_change_nothing():
    from nsightflow.diagnosis.advice_rows import compiler_did

    variants = {
        "v0": {"compiler": {"atomics": 1, "redux": 1, "atomics_aggregated": True}},
        "v1": {"compiler": {"atomics": 1, "redux": 0, "shuffles": 5}},
    }
    found = compiler_did("v1", "v0", variants, 1.01, 1.05)
    assert found is not None
    assert "nvcc had already summed each warp" in render(found.rule, found.params)
    assert compiler_did("v1", "v0", variants, 7.8, 1.05) is None  # it did change
