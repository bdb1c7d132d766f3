"""What next: suggestions bounded by a floor with the launch's fixed cost, never for a
library variant, never for a change the compiler facts show is already there."""

import math

import pandas as pd
import pytest

from nsightflow.diagnosis.advice import already_done, fix_message
from nsightflow.diagnosis.floors import basis_message, fixed_basis, fixed_cost, noise
from nsightflow.diagnosis.record import render
from nsightflow.diagnosis.scoring import step_scores
from nsightflow.diagnosis.suggest import (
    Suggestion,
    grid_blocks,
    grid_suggestion,
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


def test_the_fixed_cost_is_the_least_any_launch_took_beyond_its_ideal_at_any_size():
    # a took 5.5 us beyond its ideal time at the smallest size but only 4.2 us at
    # size 2: a cost the same at every size is at most 4.2 us, and a at 2 says so
    table = pd.DataFrame(
        {
            "variant": ["a", "b", "a", "b"],
            "size": [1, 1, 2, 2],
            "status": ["ok"] * 4,
            "time_median_us": [6.5, 9.0, 20.0, 30.0],
            "roof_time_us": [1.0, 1.0, 15.8, 15.8],
        }
    )
    assert fixed_cost(table) == pytest.approx(4.2)
    basis = fixed_basis(table)
    assert (basis.variant, basis.size) == ("a", 2)
    assert render("advice", basis_message(basis)) == (
        "the least any variant of the family took above its ideal time at any "
        "measured size (`a` at n = 2)"
    )


def test_the_fixed_cost_of_a_variant_is_read_from_its_own_input():
    # histogram at 2^20 on the H200: v1_private (uniform input) took 15.6 us beyond
    # its ideal time, the merge of its blocks' counts; v4_private_skewed, the same
    # code on the skewed input, 15.8 us: its floor is bounded by its own input's
    table = pd.DataFrame(
        {
            "variant": ["v1_private", "v4_private_skewed", "v1_private"],
            "input": [None, "kind=skewed", None],
            "size": [1048576, 1048576, 16777216],
            "status": ["ok"] * 3,
            "time_median_us": [15.87, 16.02, 36.8],
            "roof_time_us": [0.249, 0.249, 3.98],
        }
    )
    basis = fixed_basis(table, "v4_private_skewed")
    assert (basis.variant, basis.us) == ("v4_private_skewed", pytest.approx(15.771))
    assert render("advice", basis_message(basis)).startswith(
        "the least any variant on the same input took"
    )
    assert fixed_basis(table, "v1_private").variant == "v1_private"
    assert not fixed_basis(table).per_input  # the family's, as before


def test_a_launch_faster_than_its_ceiling_bounds_the_fixed_cost_at_zero():
    # b ran 1 us under its ideal time at size 2 (a stream faster than the copy the
    # ceiling measured): the bound is 0, said with the launch that set it; a row
    # whose ceiling is a library's own rate is 0 beyond by construction and bounds
    # nothing
    table = pd.DataFrame(
        {
            "variant": ["a", "b", "lib"],
            "size": [1, 2, 2],
            "status": ["ok"] * 3,
            "time_median_us": [6.5, 14.8, 30.0],
            "roof_time_us": [1.0, 15.8, 30.0],
            "regime_ceiling": ["copy_bw", "copy_bw", "vendor_sgemm"],
        }
    )
    basis = fixed_basis(table)
    assert basis.us == 0.0
    assert (basis.variant, basis.size) == ("b", 2)
    said = render("advice", basis_message(basis, "2^1"))
    assert "`b` at n = 2^1 ran 1.0 us under its ideal time" in said
    assert fixed_cost(table.iloc[[0, 2]]) == 5.5


def test_no_floor_is_below_the_fastest_launch_at_the_smallest_size():
    from nsightflow.diagnosis.floors import fastest, floor_basis, with_fastest

    # Jacobi-2D on the H200: every variant took at least 5.1 us at n = 512 (the
    # ideal time is 0.5 us); v5 ran under its ideal time at 16384, so the fixed
    # cost bounded at every size is 0: at 512 and 2048 the floor is 5.1 us, said
    # as v3's time at 512; at 8192 the ideal time (127.4 us) is above it
    table = pd.DataFrame(
        [
            {"variant": v, "size": n, "status": "ok", "time_median_us": t}
            for v, n, t in (
                ("v3", 512, 5.1),
                ("v5", 512, 5.3),
                ("v5", 2048, 13.3),
                ("v5", 8192, 130.8),
            )
        ]
    )
    best = fastest(table)
    at512 = with_fastest({"variant": "v5", "size": 512, "roof_time_us": 0.5}, best)
    assert floor_basis(at512, 0.0) == (5.1, "v3", 0)
    at2048 = with_fastest({"variant": "v0", "size": 2048, "roof_time_us": 2.0}, best)
    assert floor_basis(at2048, 0.0) == (5.1, "v3", 512)
    at8192 = with_fastest({"variant": "v0", "size": 8192, "roof_time_us": 127.4}, best)
    assert floor_basis(at8192, 0.0) == (127.4, "", 0)


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
    text = render(found.rule, found.params)
    assert "nvcc had already summed each warp" in text and "REDUX.SUM" in text
    assert compiler_did("v1", "v0", variants, 7.8, 1.05) is None  # it did change


def test_the_compiler_did_it_row_is_given_to_the_step_section():
    from nsightflow.diagnosis.advice_rows import AdviceRows

    # aggatomic's shape: v0's atomicAdd(C, 1) is issued once per warp by nvcc (an
    # elected lane adds the POPC of the active lanes); v1 writes a ballot for it
    table = pd.DataFrame(
        [
            {"variant": v, "size": 1 << 24, "status": "ok", "time_median_us": t}
            for v, t in (("v0", 40.0), ("v1", 39.8))
        ]
    )
    ctx = {
        "family": {"name": "aggatomic", "profile_sizes": [1 << 24]},
        "variants": [
            {
                "name": "v0",
                "status": "ok",
                "compiler": {"atomics": 1, "elect": 1, "atomics_aggregated": True},
            },
            {
                "name": "v1",
                "status": "ok",
                "improves_on": "v0",
                "compiler": {"atomics": 1, "elect": 1, "ballots": 1},
            },
        ],
    }
    rows = AdviceRows(table, ctx, []).run()
    did = [r for r in rows if r["rule"] == "advice_compiler_did"]
    assert sorted(r["section"] for r in did) == ["advice", "step"]
    step = next(r for r in did if r["section"] == "step")
    assert step["variant"] == "v1" and step["step_of"] == "v0"
    assert step["role"] == "info" and step["size"] == 1 << 24
    assert "nvcc had already summed each warp" in step["message"]
    assert "`POPC`" in step["message"] and "ballot" in step["message"]


def test_no_floor_is_above_the_fastest_time_measured_at_its_size():
    from nsightflow.diagnosis.floors import fastest, floor_of, with_fastest

    # SGEMM at n = 4096 on the H200: v7 2,834.5 us, cuBLAS (v8) 2,673.4 us; the
    # ceiling's ideal 2,712.6 us plus the 11.0 us fixed cost would be 2,723.6 us
    table = pd.DataFrame(
        [
            {"variant": v, "size": n, "status": "ok", "time_median_us": t}
            for v, n, t in (
                ("v7", 4096, 2834.5),
                ("v8", 4096, 2673.4),
                ("v8", 256, 13.0),
            )
        ]
    )
    row = with_fastest(
        {"variant": "v7", "size": 4096, "roof_time_us": 2712.6}, fastest(table)
    )
    assert floor_of(row, 11.0) == (2673.4, "v8")
    # where the model is below every measured time it stays the floor
    low = with_fastest({"size": 4096, "roof_time_us": 2600.0}, fastest(table))
    assert floor_of(low, 11.0) == (2611.0, "")


def test_one_address_atomics_are_timed_on_their_slice_at_the_family_s_rate():
    from nsightflow.diagnosis.suggest import serial_atomics

    # hotatomic v1 on the H200 at 2^22: 131,072 of its 197,080 atomic sectors on one
    # slice, 231.9 us; v0's slice served 4,194,304 in 7,362 us (570 per us)
    row = {
        "variant": "v1",
        "size": 1 << 22,
        "status": "ok",
        "time_median_us": 234.0,
        "time_iqr_us": 1.0,
        "roof_time_us": 3.9,
        "l2_atomic_sectors": 197080.0,
        "l2_atomic_sectors_max": 131072.0,
        "sm_hz": 1.982e9,
        "ncu_time_us": 231.9,
        "slice_rate": 4194304 / 7362.0,
        "slice_rate_by": "v0",
        "slice_rate_size": 1 << 22,
        "slice_rate_sectors": 4194304.0,
        "slice_rate_us": 7362.0,
    }
    found = serial_atomics(row, {"atomics": 1, "shuffles": 5}, 10.3)
    assert found is not None and found.kind == "hot_atomics"
    least = 131072 / (4194304 / 7362.0)  # 230.1 us, not 197,080 at one per clock
    assert math.isclose(found.share, 100 * least / 231.9)
    assert math.isclose(found.mechanism_gain, 1 / (1 - 0.99))  # 99%: capped
    assert found.fix["model"]["@"] == "serial_model_rate"
    # without a family rate: the slice's count at one per clock, said as assumed;
    # 131,072 clocks are 66 us, under a third of the launch: not claimed
    alone = {k: v for k, v in row.items() if not k.startswith("slice_rate")}
    assert serial_atomics(alone, {"atomics": 1, "shuffles": 5}, 10.3) is None
    more = {**alone, "l2_atomic_sectors_max": 4e5}  # 201.8 us at 1.982 GHz
    found = serial_atomics(more, {"atomics": 1, "shuffles": 5}, 10.3)
    assert found is not None and found.fix["model"]["@"] == "serial_model_clock"
    assert math.isclose(found.share, 100 * 4e5 / 1.982e3 / 231.9)
    # a histogram's per-lane atomics (no warp aggregation) are not read this way
    assert serial_atomics(row, {"atomics": 1}, 10.3) is None
    # more atomics than one address could take in the launch: several addresses
    many = {**row, "l2_atomic_sectors_max": 2e6}
    assert serial_atomics(many, {"atomics": 1, "shuffles": 5}, 10.3) is None


def test_a_variant_on_another_input_bounds_no_floor():
    from nsightflow.diagnosis.floors import fastest, floor_of, with_fastest

    # spmv at 2^20 on the H200: v3_hyb takes 26.2 us on the uniform matrix, v7 (the
    # same kernel on the skewed one) 38.8 us; its model floor is 27.8 us
    table = pd.DataFrame(
        [
            {"variant": "v3", "size": 1 << 20, "status": "ok", "time_median_us": 26.2},
            {
                "variant": "v7",
                "size": 1 << 16,
                "status": "ok",
                "time_median_us": 15.8,
                "input": "kind=skewed",
            },
            {
                "variant": "v7",
                "size": 1 << 20,
                "status": "ok",
                "time_median_us": 38.8,
                "input": "kind=skewed",
            },
        ]
    )
    row = {"size": 1 << 20, "input": "kind=skewed", "roof_time_us": 21.6}
    assert floor_of(with_fastest(row, fastest(table)), 6.2) == (27.8, "")


def test_register_advice_reads_the_cap_the_source_already_asks_for():
    """SGEMM v7's __launch_bounds__(THREADS, MIN_BLOCKS) already caps its registers;
    v6's __launch_bounds__(THREADS) sets no minimum of blocks and caps nothing; a
    kernel without either is told both ways to cap them."""
    from pathlib import Path

    from nsightflow.diagnosis.advice import LAUNCH_BOUNDS
    from nsightflow.diagnosis.variant_facts import register_cap

    kernels = Path(__file__).resolve().parents[3] / "kernels" / "sgemm"
    v6 = register_cap((kernels / "v6_vectorized.cu").read_text())
    v7 = register_cap((kernels / "v7_double_buffer.cu").read_text())
    assert v6 == "__launch_bounds__(THREADS)"
    assert v7 == "__launch_bounds__(THREADS, MIN_BLOCKS)"
    assert register_cap("", ["nvcc", "-maxrregcount=64"]) == "-maxrregcount=64"

    def said(cap):
        facts = {"registers": 128, "warps_by_registers": 16, LAUNCH_BOUNDS: cap}
        return render("advice", fix_message("low_occupancy", {}, facts))

    assert "already asks of ptxas" in said(v7)
    assert "cap them" not in said(v7)
    assert "sets no minimum of blocks per SM, so it caps nothing" in said(v6)
    assert "`__launch_bounds__(THREADS)`" in said(v6)
    assert "cap them (`__launch_bounds__`, `-maxrregcount`)" in said("")
    assert "already asks of ptxas" in said("-maxrregcount=64")
