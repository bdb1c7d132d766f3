"""A step's sentences checked against the step's own numbers, on constructed rows: a
removed launch, FP64 work, a named change behind an unnamed stall, the occupancy a
small grid costs, one verdict from the timing noise, ties, the reading of sectors per
request, and what a step is expected to do. Each holds where its numbers say so and is
not said where they do not.
"""

import math

import pytest

from constructed import launch
from nsightflow.diagnosis import moves, revise, summary
from nsightflow.diagnosis.pipes import pipe_moves
from nsightflow.diagnosis.record import Finding, render
from nsightflow.diagnosis.steps import expectation, step_causes
from nsightflow.diagnosis.verdict import outcome, step_verdict, ties
from nsightflow.i18n import language

NAN = math.nan

# reduction's v3_vec4 -> v4_vec4_atomic at n = 2^24, ncu's per-launch times
LAUNCHES = {
    "v3": {
        "1024": [
            {"launch": 0, "kernel": "reduce_v3", "time_us": 18.624},
            {"launch": 1, "kernel": "reduce_finish", "time_us": 2.944},
        ]
    }
}


def test_a_removed_launch_that_accounts_for_the_gain_is_the_primary():
    a = launch(variant="v3", ncu_time_us=21.568)
    b = launch(variant="v4", ncu_time_us=18.88)
    found = revise.launch_change(a, b, LAUNCHES, ("reduce_v3", "reduce_v4"))
    assert found is not None and found.rule == "launch_removed"
    assert found.share == pytest.approx(2.944 / (21.568 - 18.88))
    with language("en"):
        text = render(found.rule, found.params)
    assert "`reduce_finish` (2.94 us of ncu's time) no longer runs" in text
    ranked, total = step_causes(a, b)
    revised = revise.revise(a, b, ranked, total, LAUNCHES, ("reduce_v3", "reduce_v4"))
    assert [f.rule for f in revised] == ["launch_removed"]


def test_a_removed_launch_is_not_the_primary_where_the_gain_is_elsewhere():
    a = launch(variant="v3", ncu_time_us=21.568)
    b = launch(variant="v4", ncu_time_us=12.0)  # 9.6 us faster: the launch is 2.9
    assert revise.launch_change(a, b, LAUNCHES, ("reduce_v3", "reduce_v4")) is None
    same = launch(variant="v3", ncu_time_us=21.0)  # two launches on both sides
    assert revise.launch_change(a, same, LAUNCHES, ("reduce_v3", "reduce_v3")) is None


def fp64_step(x, y):
    """A float kernel (FP64 share ``x``) and its step (``y``), 3x the time."""
    a = launch(inst_executed=1e8, inst_pipe_fp64=x * 1e8, registers=48.0)
    b = launch(inst_executed=2.2e8, inst_pipe_fp64=y * 2.2e8, ncu_time_us=360.0,
               registers=82.0, line_fp64=22.0, stall_math_pipe_throttle=3.0,
               pipe_fp64_pct=92.0, cycles_per_issue=11.0)  # fmt: skip
    return a, b


@pytest.mark.parametrize(
    ("x", "y", "rule"),
    [
        (0.0, 0.14, "fp64_work"),  # FP64 instructions appear: their work is primary
        (0.0, 0.04, None),  # under 5% of the instructions: not the step's work
        (0.02, 0.14, None),  # FP64 there before (2% > 1%): not moved by this step
    ],
)
def test_work_moved_to_fp64_is_the_primary_of_a_slower_step(x, y, rule):
    a, b = fp64_step(x, y)
    ranked, total = step_causes(a, b)
    found = revise.pipe_work_change(a, b, ranked, total)
    assert (found[0].rule if found else None) == rule
    if found:
        assert found[0].line == 22
        with language("en"):
            text = render(found[0].rule, found[0].params)
        assert "FP64 (double precision) warp instructions 0.0 M -> 30.8 M" in text
        assert "registers per thread 48 -> 82" in text
        # the factors it drives are in it, not listed again
        assert not {f.rule for f in found[1:]} & set(revise.FP64_FACTORS)


def test_a_step_says_which_pipe_its_instructions_moved_to():
    a, b = fp64_step(0.0, 0.14)
    (found,) = pipe_moves(a, b)
    assert found.rule == "pipe_moved" and found.line == 22
    with language("en"):
        text = render(found.rule, found.params)
    assert text.startswith("FP64 (double precision) warp instructions 0.0 M -> 30.8 M")
    assert "line 22" in text
    assert pipe_moves(*fp64_step(0.0, 0.0)) == []


def test_dispatch_stalls_beside_fewer_conflict_replays_are_not_named_bank_conflicts():
    # SGEMM v5 -> v6 at 4096: dispatch stalls fall beside the conflict replays
    # (38% -> 1%), but replays wait in the MIO queue, not at dispatch: the stall has
    # no counter of its own, so its part is pooled with the other stall reasons, and
    # bank conflicts are named only with the MIO stalls they cause
    a = launch(stall_dispatch_stall=3.0, cycles_per_issue=12.0, smem_conflict_share=0.38,
               ncu_time_us=140.0)  # fmt: skip
    b = launch(
        stall_dispatch_stall=1.0, cycles_per_issue=10.0, smem_conflict_share=0.01
    )
    ranked, total = step_causes(a, b)
    assert ranked[0].rule == "other_stalls"
    assert "dispatch_stall" in ranked[0].evidence
    assert "dispatch" not in [f.rule for f in ranked]
    revised = revise.revise(a, b, ranked, total, {}, ("k", "k"))
    assert "bank_conflicts" not in [f.rule for f in revised]


def test_occupancy_lost_to_a_grid_smaller_than_the_gpu_is_named_after_the_grid():
    # SGEMM v4 -> v5 at n = 1024: 64 blocks on 132 SMs, 48% -> 12% achieved
    a = launch(achieved_occupancy_pct=48.0, waves_per_sm=2.0)
    b = launch(achieved_occupancy_pct=12.0, waves_per_sm=0.24, grid_blocks=64.0,
               ncu_time_us=208.0)  # fmt: skip
    ranked, _ = step_causes(a, b)
    assert ranked[0].rule == "grid_too_small"
    assert "occupancy" not in {f.rule for f in ranked}
    whole = launch(achieved_occupancy_pct=12.0, waves_per_sm=2.0, ncu_time_us=208.0)
    ranked, _ = step_causes(a, whole)
    assert ranked[0].rule == "occupancy"  # a full wave: the registers cost the warps


@pytest.mark.parametrize(
    ("t1", "iqr1", "verdict"),
    [
        (174.8, 8.7, "no_gain"),  # Jacobi v3_colstrip at 8192: within its IQR
        (174.8, 1.6, "paid"),
        (180.0, 0.1, "no_gain"),  # under 2%
        (200.0, 1.0, "not_paid"),
    ],
)
def test_one_verdict_per_step_from_the_timing_noise(t1, iqr1, verdict):
    a = launch(time_median_us=180.9, time_iqr_us=1.6)
    b = launch(time_median_us=t1, time_iqr_us=iqr1, ncu_time_us=120.0 * t1 / 180.9)
    assert outcome(a, b) == verdict
    ranked, _ = step_causes(a, b, outcome(a, b))
    # the step's primary and its conclusion line agree
    assert (ranked[0].rule == "step_unchanged") == (verdict == "no_gain")
    assert step_verdict(180.9 / t1, 100 * max(1.6, iqr1) / 180.9) == verdict


def test_a_timing_change_that_ncu_does_not_show_is_not_ranked():
    a = launch(time_median_us=54.4, time_iqr_us=1.0)
    b = launch(time_median_us=52.4, time_iqr_us=1.3, ncu_time_us=119.0)
    ranked, _ = step_causes(a, b, outcome(a, b))
    assert ranked[0].rule == "step_not_in_counters"


def test_winners_within_the_noise_tie_and_the_headline_says_so():
    best = launch(variant="v3_hyb", time_median_us=26.17, time_iqr_us=0.9)
    rows = [best, launch(variant="v2_ell", time_median_us=26.21, time_iqr_us=1.0),
            launch(variant="v1", time_median_us=30.0, time_iqr_us=0.5)]  # fmt: skip
    assert ties(best, rows) == ["v2_ell"]
    found = summary.headline(best, "v0", ties(best, rows))
    with language("en"):
        text = render(found.rule, found.params)
    assert "(tied with `v2_ell`: within the timing noise)" in text
    alone = summary.headline(best, "v0", [])
    with language("en"):
        assert "tied" not in render(alone.rule, alone.params)


@pytest.mark.parametrize(
    ("after", "reading"),
    [
        (16.39, "sectors_sixteen_byte"),  # Jacobi's float4 step: 16-byte loads
        (4.40, "sectors_four_byte"),
        (9.0, "sectors_dense"),
        (2.2, "sectors_sparse"),
        (32.0, "sectors_scattered"),
    ],
)
def test_sectors_per_request_are_read_by_the_width_they_match(after, reading):
    (found,) = moves.traffic(
        launch(sectors_per_request=12.0, dram_bytes=1e8),
        launch(sectors_per_request=after, dram_bytes=1e8),
    )[:1]
    assert found.params["reading"]["@"] == reading


def test_expected_mechanisms_need_what_they_act_on():
    # SpMV's padding step has no shared memory: no bank conflicts expected of it
    a = launch(shared_ld_inst=0.0, shared_st_inst=0.0, shared_atom_inst=0.0,
               stall_mio_throttle=0.0, dram_bytes=1.1e9, ncu_time_us=257.0,
               dram_pct=89.0, copy_gbps=4200.0)  # fmt: skip
    b = launch(shared_ld_inst=0.0, shared_st_inst=0.0, shared_atom_inst=0.0,
               stall_mio_throttle=0.0, dram_bytes=0.94e8, ncu_time_us=39.0,
               copy_gbps=4200.0)  # fmt: skip
    ranked, total = step_causes(a, b)
    assert ranked[0].rule == "dram_bytes"
    found = expectation("ELL with padding, without its padding", a, b, ranked, total)
    assert "bank_conflicts" not in found.metric
    # fewer DRAM bytes meet an expected excess of DRAM traffic
    assert found.params["verdict"]["@"] == "expect_met"


def test_a_finding_without_line_keeps_its_sentence():
    f = Finding("idle_lanes", params={"@": "expect_unknown"})
    assert revise.revise(launch(), launch(), [f], 0.0, {}, ("k", "k")) == [f]
