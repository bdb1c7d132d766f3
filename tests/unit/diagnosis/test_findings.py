"""Diagnosis rules on constructed launches: each fires where its condition holds and is
silent where it just misses, where its metric is missing, and where ncu reports 0 (n/a).
"""

import itertools
import math

import pandas as pd
import pytest

from constructed import launch
from nsightflow.analysis.regime import add_regime, classify
from nsightflow.diagnosis import causes as C
from nsightflow.diagnosis import launch_state, moves, patterns, stand
from nsightflow.diagnosis.expected import expectation, expected_mechanisms
from nsightflow.diagnosis.model import time_split
from nsightflow.diagnosis.record import Finding, Where, place, render, row
from nsightflow.diagnosis.step_split import count_split, step_terms
from nsightflow.diagnosis.steps import step_causes
from nsightflow.i18n import language

NAN = math.nan


def named(row_, group):
    return C.name_group(row_, group)[0]


# --- the time model ------------------------------------------------------------------


def test_time_split_adds_up_to_ncu_time_and_names_idle_time():
    split = time_split(launch())
    assert sum(split.values()) == pytest.approx(120.0)
    assert split["idle"] == pytest.approx(120.0 - 1e8 * 10 / (32 * 132 * 2e9) * 1e6)
    assert split["long_scoreboard"] == pytest.approx(split["lg_throttle"] * 6)
    assert time_split(launch(inst_executed=NAN)) is None  # a factor missing: no split


def _lmean(x, y):
    return x if x == y else (y - x) / math.log(y / x)


def test_step_terms_split_the_log_time_ratio_exactly():
    a = launch()
    b = launch(
        ncu_time_us=70.0,
        inst_executed=6e7,
        cycles_per_issue=9.0,
        stall_long_scoreboard=5.0,
        achieved_occupancy_pct=55.0,
        sm_hz=1.9e9,
        global_ld_requests=6e5,  # the loads fell with the instructions
    )
    terms = step_terms(a, b)
    assert sum(terms.values()) == pytest.approx(math.log(70 / 120))
    # b's memory waits (long_scoreboard 5, lg_throttle 1, drain 0.5 cycles at 1.9 GHz)
    # last as long as 2 / 1.9 times those cycles at a's 2 GHz: the clock sets only
    # the rest of b's 9 cycles per instruction
    scale = 2 / 1.9
    cpi_b = 9 + 6.5 * (scale - 1)
    # warp-cycles per resident warp (32 -> 35.2 warps)
    w0, w1 = 32.0, 35.2
    total_a, total_b = 10 * 1e8 / w0, cpi_b * 6e7 / w1
    # the time is warp-cycles x time per cycle x idle factor: their logs
    cycles = math.log(total_b / total_a)
    clock = math.log(2 / 1.9) + math.log(9 / cpi_b)
    idle = math.log(70 / 120) - cycles - clock
    assert cycles < 0 < clock and idle > 0
    # the saving (the warp-cycles) acts on a's 120 us, down to 120 x Yb / Ya; the
    # additions on what it left, up to b's 70 us, by their logs; each term is its
    # part in us over the log mean of the two times
    mean = _lmean(120, 70)
    left = 120 * total_b / total_a
    assert terms["clock"] == pytest.approx((70 - left) * clock / (clock + idle) / mean)
    assert terms["idle"] == pytest.approx((70 - left) * idle / (clock + idle) / mean)
    # the reasons share the warp-cycles' part by their own change of Y, each
    # warp-cycle per warp at a's 120 us / Ya
    per = 120 / total_a / mean
    # occupancy is a factor of the waits other warps hide: long_scoreboard, drain
    # and the issue cycle (1 a instruction); not of lg_throttle, mio_throttle and
    # not_selected, which queue for a shared unit. What the 3.2 warps a lacks cost
    # it: a's own hidden warp-cycles at b's warps (a has the fewer)
    hidden = [6.0, 0.5, 1.0]
    occupancy = sum(c0 * 1e8 * (1 / w1 - 1 / w0) for c0 in hidden)
    assert terms["occupancy"] == pytest.approx(occupancy * per)
    # long_scoreboard: 600 -> 500 x 2/1.9 warp-cycles per load request, 1e6 -> 6e5
    # requests: both fell, each keeps its symmetric share of its warp-cycles' change
    # beyond the occupancy's
    y0, y1 = 6 * 1e8 / w0, 5 * scale * 6e7 / w1
    rest = y1 - y0 - 6 * 1e8 * (1 / w1 - 1 / w0)
    per_inst = (500 * scale - 600) * (1e6 + 6e5) / 2
    assert terms["long_scoreboard"] == pytest.approx(
        per_inst * rest / (5 * scale * 6e7 - 6e8) * per
    )
    assert step_terms(a, launch(cycles_per_issue=NAN)) == {}


def test_occupancy_is_no_factor_of_a_wait_that_queues_for_a_shared_unit():
    """A quarter of the warps, each waiting a fifth as long for the MIO queue: the
    queue holds fewer warps, not the warps lost. Splitting every wait by the warps
    read it as 4x the time through occupancy, offset by the queue (SGEMM v4 -> v5:
    an occupancy part of 7,379 us against v5's 3,741 us)."""
    kw = {"stall_long_scoreboard": 0.0, "stall_lg_throttle": 0.0, "stall_drain": 0.0,
          "stall_not_selected": 0.0, "global_ld_requests": NAN}  # fmt: skip
    a = launch(**kw, achieved_occupancy_pct=100.0, cycles_per_issue=16.0,
               stall_mio_throttle=15.0)  # fmt: skip
    # 64 -> 16 warps; mio_throttle 15 -> 3 cycles per instruction; the same time
    b = launch(**kw, achieved_occupancy_pct=25.0, cycles_per_issue=4.0,
               stall_mio_throttle=3.0)  # fmt: skip
    terms = step_terms(a, b)
    assert sum(terms.values()) == pytest.approx(0.0, abs=1e-12)
    # only the issue cycle (1 of a warp's 16 -> 4) is overlapped by other warps:
    # 1/64 -> 1/16 cycles per resident warp, against the queue's 15/64 -> 3/16
    mean = 16 * 1e8 / 64
    issue = _lmean(1e8 / 64, 1e8 / 16) * math.log(4)
    assert terms["occupancy"] == pytest.approx(issue / mean)
    assert terms["mio_throttle"] == pytest.approx((3 / 16 - 15 / 64) * 1e8 / mean)
    assert abs(terms["occupancy"]) < 0.25  # was ln 4 = 1.39: 4x the time


def test_a_memory_wait_that_only_followed_the_clock_is_no_change():
    # the same kernel profiled at a 6% higher SM clock: its memory waits take 6% more
    # cycles for the same nanoseconds, its time is the same
    a = launch(stall_long_scoreboard=8.0, stall_lg_throttle=0.0, stall_mio_throttle=0.0,
               stall_not_selected=0.0, stall_drain=0.0, cycles_per_issue=9.0)  # fmt: skip
    b = launch(stall_long_scoreboard=8.0 * 1.06, stall_lg_throttle=0.0,
               stall_mio_throttle=0.0, stall_not_selected=0.0, stall_drain=0.0,
               cycles_per_issue=1.0 + 8.0 * 1.06, sm_hz=2e9 * 1.06)  # fmt: skip
    terms = step_terms(a, b)
    assert sum(terms.values()) == pytest.approx(0.0, abs=1e-12)
    assert terms["long_scoreboard"] == pytest.approx(0.0, abs=1e-12)
    # only the issue cycle (1 of 9 per instruction) follows the clock: it saves
    # that share of the 120 us, and the idle factor takes it back
    clock = math.log(1 / 1.06) + math.log(9.48 / 9.0)
    assert terms["clock"] == pytest.approx(math.expm1(clock))
    assert terms["idle"] == pytest.approx(-math.expm1(clock))
    assert abs(terms["clock"]) < 0.15 * math.log(1.06)  # about a ninth of it
    # a cycle-bound kernel at the higher clock: faster through the clock alone
    a = launch(stall_long_scoreboard=0.0, stall_lg_throttle=0.0, stall_drain=0.0,
               stall_wait=8.0, stall_mio_throttle=0.0, stall_not_selected=0.0,
               cycles_per_issue=9.0)  # fmt: skip
    b = {**a, "sm_hz": 2e9 * 1.06, "ncu_time_us": a["ncu_time_us"] / 1.06}
    terms = step_terms(a, b)
    assert terms["clock"] == pytest.approx(math.log(1 / 1.06))
    assert sum(terms.values()) == pytest.approx(math.log(1 / 1.06))


@pytest.mark.parametrize(
    ("c0", "c1", "i0", "i1", "parts"),
    [
        (6.0, 3.0, 1.0, 2.0, (0.0, 0.0)),  # diluted: no change of either
        (4.0, 4.0, 1.0, 18.0, (68.0, 0.0)),  # only the count moved
        (4.0, 8.0, 1.0, 1.0, (0.0, 4.0)),  # only the cycles per instruction moved
        (64.0, 24.0, 1.0, 18.0, (18 * 24 - 64, 0.0)),  # opposite: the count larger
        (8.0, 2.0, 1.0, 1.5, (0.0, 1.5 * 2 - 8)),  # opposite: per instruction larger
        (2.0, 4.0, 1.0, 3.0, (2 * 3.0, 2 * 2.0)),  # both rose: symmetric split
    ],
)
def test_count_split_sums_and_never_splits_a_change_into_opposite_parts(
    c0, c1, i0, i1, parts
):
    by_count, per_inst = count_split(c0, c1, i0, i1)
    assert by_count + per_inst == pytest.approx(c1 * i1 - c0 * i0)
    assert (by_count, per_inst) == pytest.approx(parts)


def test_adding_cheap_instructions_is_not_read_as_less_waiting():
    """Twice the instructions at the same stalled warp-cycles halve every stall per
    instruction: the waiting did not change, and no stall is named as what fell."""
    a = launch()
    b = launch(
        inst_executed=2e8,
        cycles_per_issue=5.5,  # the same 8.5e8 stall cycles + 2e8 issue cycles
        stall_long_scoreboard=3.0,
        stall_lg_throttle=0.5,
        stall_mio_throttle=0.5,
        stall_not_selected=0.25,
        stall_drain=0.25,
        ncu_time_us=132.0,
    )
    terms = step_terms(a, b)
    for reason in ("long_scoreboard", "lg_throttle", "mio_throttle", "drain"):
        assert terms[reason] == pytest.approx(0.0, abs=1e-12)
    ranked, _ = step_causes(a, b)
    # the added issue cycles (one per instruction) made it slower; nothing fell
    assert ranked[0].rule == "instruction_count"
    assert ranked[0].params["part"]["dir"] == {"@": "dir_added"}
    assert [f.rule for f in ranked[1:] if f.share < 0] == []


# --- causes: preconditions ------------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        # counter: half of each sector wasted, over more sectors than a warp needs
        (
            {"ld_bytes_per_sector": 12.0, "sectors_per_request": 8.0},
            "uncoalesced_loads",
        ),
        ({"ld_bytes_per_sector": 16.0, "sectors_per_request": 8.0}, "memory_latency"),
        # as few sectors as a full warp's coalesced 4-byte loads: the unused bytes are
        # idle lanes (SpMV's warp per 9-entry row: 14.5 B, 1.6 sectors), not scatter
        ({"ld_bytes_per_sector": 14.5, "sectors_per_request": 1.6}, "memory_latency"),
        ({"ld_bytes_per_sector": 12.0, "sectors_per_request": 4.0}, "memory_latency"),
        ({"sectors_per_request": 21.0}, "uncoalesced_loads"),  # beyond 16-byte loads
        ({"sectors_per_request": 19.9}, "memory_latency"),  # 16-byte loads + a few
        ({"sectors_per_request": 0.0}, "memory_latency"),  # ncu's 0: n/a
        ({"sectors_per_request": NAN}, "memory_latency"),  # not measured
        ({"ld_bytes_per_sector": 31.0, "sectors_per_request": 30.0}, "memory_latency"),
    ],
)
def test_uncoalesced_loads_only_beyond_what_the_access_width_needs(kw, expected):
    assert named(launch(**kw), "memory_wait") == expected


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"st_bytes_per_sector": 4.0}, "uncoalesced_stores"),
        # one lane per warp stores (4 of 32 bytes, one sector per request): idle
        # lanes, not a scattered pattern
        ({"st_bytes_per_sector": 4.0, "st_sectors_per_request": 1.0}, "store_drain"),
        (
            {"st_bytes_per_sector": 4.0, "st_sectors_per_request": 32.0},
            "uncoalesced_stores",
        ),
        ({"st_bytes_per_sector": 16.0}, "store_drain"),
        ({"st_sectors_per_request": 32.0}, "uncoalesced_stores"),  # strided by n
        ({"st_sectors_per_request": 16.0}, "store_drain"),  # float4 stores
        ({"st_sectors_per_written_sector": 8.0}, "uncoalesced_stores"),
        ({"st_sectors_per_written_sector": 1.9}, "store_drain"),
        ({"st_sectors_per_written_sector": 0.0}, "store_drain"),  # n/a
        ({}, "store_drain"),  # no store metric at all
    ],
)
def test_uncoalesced_stores_need_their_own_evidence(kw, expected):
    assert named(launch(**kw), "store_drain") == expected


def test_a_drain_stall_is_named_strided_stores_not_normal():
    strided = launch(stall_drain=6.0, stall_long_scoreboard=1.0)
    strided["st_sectors_per_request"] = 32.0
    top = C.causes(strided)[0]
    assert top.mechanism == "uncoalesced_stores"
    with language("en"):
        text = render(top.mechanism, C.cause_finding(strided, top).params)
    assert "32.0 sectors per global store request" in text and "normal" not in text


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"smem_conflict_share": 0.2}, "bank_conflicts"),
        ({"smem_conflict_share": 0.19}, "shared_pipe"),
        ({"smem_conflict_share": 0.0}, "shared_pipe"),
        ({"smem_conflict_share": NAN}, "shared_pipe"),
        ({"shared_atom_inst": 1e5}, "shared_atomics"),
    ],
)
def test_bank_conflicts_from_a_fifth_of_the_wavefronts(kw, expected):
    assert named(launch(**kw), "shared_pipe") == expected


@pytest.mark.parametrize(
    ("atomics", "expected"),
    [(2e6, "global_atomics"), (1.99e6, "memory_latency"), (0.0, "memory_latency")],
)
def test_global_atomics_when_they_are_half_the_load_sectors(atomics, expected):
    assert named(launch(l2_atomic_sectors=atomics), "memory_wait") == expected
    assert named(launch(), "memory_wait") == "memory_latency"  # metric missing


@pytest.mark.parametrize(
    ("fma", "expected"),
    [(60.0, "fp32_pipe"), (59.9, "math_pipe_other"), (NAN, "math_pipe_other")],
)
def test_compute_bound_on_the_fp32_pipe_only_when_it_is_busy(fma, expected):
    assert named(launch(fma_pct=fma), "math_pipe") == expected


@pytest.mark.parametrize(
    ("issue", "expected"), [(60.0, "issue_bound"), (59.0, "issue"), (NAN, "issue")]
)
def test_issue_bound_only_when_the_issue_slots_are_busy(issue, expected):
    assert named(launch(issue_pct=issue), "issue") == expected


@pytest.mark.parametrize(
    ("waves", "expected"),
    [
        (0.24, "grid_too_small"),  # SGEMM 128x128 tiles at n = 1024: 64 blocks
        (1.29, "tail_effect"),  # a last wave 29% full
        (1.6, "idle_sms"),  # a last wave 60% full: no tail
        (4.5, "idle_sms"),  # too many waves for a tail
        (248.0, "idle_sms"),  # Jacobi-2D's 262,144 blocks
        (0.0, "idle_sms"),  # ncu's 0: n/a
        (NAN, "idle_sms"),
    ],
)
def test_tail_effect_only_with_few_waves_and_a_small_last_one(waves, expected):
    assert named(launch(waves_per_sm=waves, grid_blocks=64.0), "idle") == expected


@pytest.mark.parametrize(
    ("blocks", "expected"),
    [
        (64.0, "grid_too_small"),  # SGEMM v5 at 1024: 68 SMs get no block
        # strided v0: 2,048 blocks, 0.97 waves: every SM has blocks, none is empty
        (2048.0, "idle_sms"),
        (NAN, "idle_sms"),  # the grid not recorded: no claim about empty SMs
    ],
)
def test_a_grid_smaller_than_the_gpu_only_where_some_sm_gets_no_block(blocks, expected):
    name, evidence = C.name_group(launch(waves_per_sm=0.5, grid_blocks=blocks), "idle")
    assert name == expected
    with language("en"):
        text = render("x", evidence)
    assert ("some SMs get no block" in text) == (expected == "grid_too_small")


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"regime": "memory", "dram_bytes": 1.5e8}, "dram_excess"),
        ({"regime": "memory", "dram_bytes": 1.49e8}, "bytes_in_flight"),
        ({"regime": "latency", "dram_bytes": 3e8}, "memory_latency"),
        ({"regime": "memory", "dram_bytes": NAN}, "bytes_in_flight"),
    ],
)
def test_excess_dram_traffic_only_for_a_memory_bound_launch(kw, expected):
    assert named(launch(**kw), "memory_wait") == expected


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"local_sectors": 5e4}, "local_memory"),  # 1% of the global sectors
        ({"local_sectors": 4.9e4}, "memory_latency"),
        ({"local_sectors": 0.0}, "memory_latency"),
        ({"spill_bytes": 64.0}, "local_memory"),
    ],
)
def test_local_memory_from_its_sectors_or_the_spills(kw, expected):
    assert named(launch(**kw), "memory_wait") == expected


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        # 12.5% theoretical, capped by shared memory (4 blocks per SM)
        ({"theoretical_occupancy_pct": 12.5, "occ_limit_shared_mem": 4.0,
          "occ_limit_registers": 16.0}, "low_occupancy"),
        ({"theoretical_occupancy_pct": 25.0, "occ_limit_registers": 2.0},
         "low_occupancy"),
        # just above the threshold: the latency itself
        ({"theoretical_occupancy_pct": 25.1, "occ_limit_registers": 2.0},
         "memory_latency"),
        # no limiter measured, or occupancy not measured / ncu's 0
        ({"theoretical_occupancy_pct": 12.5}, "memory_latency"),
        ({"theoretical_occupancy_pct": NAN, "occ_limit_shared_mem": 4.0},
         "memory_latency"),
        ({"theoretical_occupancy_pct": 0.0, "occ_limit_shared_mem": 4.0},
         "memory_latency"),
        # a wait with its own precondition keeps its name (scattered loads)
        ({"theoretical_occupancy_pct": 12.5, "occ_limit_shared_mem": 4.0,
          "sectors_per_request": 32.0}, "uncoalesced_loads"),
    ],
)  # fmt: skip
def test_low_occupancy_names_the_latency_wait_of_a_launch_with_few_warps(kw, expected):
    top = C.causes(launch(**kw))[0]
    assert top.mechanism == expected
    if expected == "low_occupancy":
        assert top.evidence["theoretical"] == kw["theoretical_occupancy_pct"]
        assert top.evidence["warps"] == pytest.approx(
            kw["theoretical_occupancy_pct"] * 64 / 100
        )
        limiter = min(
            (k for k in kw if k.startswith("occ_limit_")), key=lambda k: kw[k]
        )
        assert top.evidence["metric"] == "launch__occupancy_limit_" + limiter[10:]
    # a step's change is named by the stall's own mechanism, never after occupancy
    assert named(launch(**kw), "memory_wait") != "low_occupancy"


def test_a_step_raising_occupancy_meets_a_low_occupancy_expectation():
    a = launch(theoretical_occupancy_pct=12.5, occ_limit_shared_mem=4.0,
               achieved_occupancy_pct=12.0, ncu_time_us=400.0)  # fmt: skip
    b = launch(achieved_occupancy_pct=90.0, stall_long_scoreboard=20.0,
               cycles_per_issue=24.0, ncu_time_us=100.0)  # fmt: skip
    ranked, total = step_causes(a, b)
    assert ranked[0].rule == "occupancy"
    found = expectation("a smaller buffer, so that more blocks fit on an SM", a, b,
                        ranked, total)  # fmt: skip
    assert found.params["verdict"]["@"] == "expect_met"
    assert "occupancy" in found.metric


@pytest.mark.parametrize(
    ("local", "expected"),
    [
        (5e6, "local_memory"),  # half of the queue's 10 M sectors (5 M global)
        (4.9e6, "lsu_queue"),  # just under half
        (0.0, "lsu_queue"),
        (NAN, "lsu_queue"),  # not collected
    ],
)
def test_a_full_lsu_queue_is_local_memory_when_local_sectors_fill_it(local, expected):
    row = launch(local_sectors=local, stall_lg_throttle=8.0, stall_long_scoreboard=0.5)
    assert named(row, "lsu_queue") == expected
    if expected == "local_memory":
        assert C.causes(row)[0].mechanism == "local_memory"


def test_causes_are_ranked_by_time_and_small_ones_dropped():
    found = C.causes(launch())
    assert [c.mechanism for c in found][:1] == ["memory_latency"]
    assert all(a.time_us >= b.time_us for a, b in itertools.pairwise(found))
    assert all(c.share >= C.MIN_SHARE for c in found)
    assert C.causes(launch(cycles_per_issue=NAN)) == []


# --- metric facts ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "fires"),
    [(90.0, 98.0, True), (95.0, 98.0, False), (0.0, 98.0, False), (NAN, 98.0, False)],
)
def test_branch_uniformity_zero_from_ncu_is_not_a_change(before, after, fires):
    found = patterns.divergence_findings(
        launch(branch_uniform_pct=before), launch(branch_uniform_pct=after)
    )
    assert any(f.rule == "branches_moved" for f in found) == fires


@pytest.mark.parametrize(
    ("lanes", "fires"), [(74.9, True), (75.0, False), (0.0, False), (NAN, False)]
)
def test_divergence_below_three_quarters_of_the_lanes(lanes, fires):
    found = patterns.pattern_state(launch(lane_efficiency_pct=lanes))
    assert any(f.rule == "lanes_low" for f in found) == fires


@pytest.mark.parametrize(
    ("achieved", "waves", "fires"),
    [
        (70.0, 248.0, True),
        (81.0, 248.0, False),  # 19 points below: just misses
        (70.0, 3.0, False),  # few waves: a tail would be the explanation
        (70.0, NAN, False),
        (0.0, 248.0, False),
    ],
)
def test_occupancy_gap_is_never_called_a_tail_with_many_waves(achieved, waves, fires):
    found = launch_state.occupancy_state(
        launch(achieved_occupancy_pct=achieved, waves_per_sm=waves)
    )
    assert any(f.rule == "occupancy_gap" for f in found) == fires
    with language("en"):
        for f in found:
            assert (
                "tail effect)" in render(f.rule, f.params) or f.rule != "occupancy_gap"
            )


@pytest.mark.parametrize(
    ("before", "after", "fires"),
    [(4.4, 16.4, True), (4.4, 4.8, False), (0.0, 4.0, False), (NAN, 4.0, False)],
)
def test_sectors_per_request_moved(before, after, fires):
    found = moves.traffic(
        launch(sectors_per_request=before), launch(sectors_per_request=after)
    )
    assert any(f.rule == "sectors_moved" for f in found) == fires


def test_stores_fixed_and_conflicts_fell_need_measured_sides():
    strided = launch(st_sectors_per_request=32.0)
    coalesced = launch(st_sectors_per_request=4.0)
    assert [f.rule for f in moves.traffic(strided, coalesced)] == ["stores_fixed"]
    assert moves.traffic(strided, launch()) == []  # after: not measured
    conflicted = launch(smem_conflicts_ld=8e6, smem_conflict_share=0.84)
    padded = launch(smem_conflicts_ld=1e5, smem_conflict_share=0.01)
    assert [f.rule for f in moves.conflicts(conflicted, padded)] == ["conflicts_fell"]
    assert moves.conflicts(launch(), launch()) == []


def test_regime_change_is_said_at_the_step_where_it_happens():
    assert moves.regime_change(launch(regime="memory"), launch(regime="memory")) == []
    (f,) = moves.regime_change(launch(regime="latency"), launch(regime="compute"))
    assert f.rule == "regime_changed"
    assert moves.regime_change(launch(regime=""), launch(regime="compute")) == []


# --- the regime -------------------------------------------------------------------------


def _evidence(memory=None, compute=None, ai=NAN, ridge=15.2):
    return {"memory": memory or {}, "compute": compute or {}, "ai": ai, "ridge": ridge}


@pytest.mark.parametrize(
    ("evidence", "regime"),
    [
        (_evidence(memory={"dram": 60.0}, compute={"issue": 30.0}), "memory"),
        (_evidence(memory={"dram": 59.0}, compute={"issue": 30.0}), "latency"),
        (_evidence(memory={"dram": 20.0}, compute={"issue": 76.0}), "compute"),
        # intensity far past the ridge: a math pipe at a moderate rate decides
        (_evidence(memory={"dram": 4.0}, compute={"fma": 43.0}, ai=683), "compute"),
        (_evidence(memory={"dram": 4.0}, compute={"fma": 39.0}, ai=683), "latency"),
        # SGEMM v4 at n = 4096: issue slots 44% busy, FMA pipe 27%, 26% of the FP32
        # peak: the issue slots alone make no kernel compute-bound
        (
            _evidence(
                memory={"dram": 4.0},
                compute={"measured_flops/t/fp32_gflops": 27.0},
                ai=683,
            ),
            "latency",
        ),
        # near the ridge the intensity decides nothing
        (_evidence(memory={"dram": 45.0}, compute={"issue": 45.0}, ai=20), "latency"),
        (_evidence(memory={"gbps": 53.0}, ai=0.62), "memory"),  # Jacobi v0, timing only
        (_evidence(), ""),
    ],
)
def test_regime_from_measured_throughput_then_intensity(evidence, regime):
    assert classify(evidence)[0] == regime


def test_unprofiled_size_borrows_a_profiled_regime_only_at_a_similar_rate():
    rows = pd.DataFrame(
        [
            {"variant": "v4", "size": 4096, "profiled": True, "time_median_us": 8200.0,
             "ideal_flops": 1.374e11, "ideal_bytes": 2.01e8, "ai_ideal": 683.0,
             "ncu_time_ns": 8.2e6, "fma_pipe_counter_pct": 43.0,
             # ncu's FLOPs (2x the ideal ones): 52% of the FP32 peak, where the
             # timing's ideal FLOPs read 26%; the FMA pipe is not read
             "measured_flops": 2.748e11},
            {"variant": "v4", "size": 8192, "profiled": False, "time_median_us": 65600.0,
             "ideal_flops": 1.0995e12, "ideal_bytes": 8.05e8, "ai_ideal": 1365.0},
            {"variant": "v4", "size": 256, "profiled": False, "time_median_us": 34.0,
             "ideal_flops": 3.36e7, "ideal_bytes": 7.9e5, "ai_ideal": 43.0},
        ]
    )  # fmt: skip
    rows["gflops"] = rows["ideal_flops"] / rows["time_median_us"] / 1e3
    rows["gbps"] = rows["ideal_bytes"] / rows["time_median_us"] / 1e3
    ceilings = {"copy_gbps": 4000.0, "fp32_gflops": 64000.0}
    rows["pct_of_copy_bw"] = 100 * rows["gbps"] / 4000
    rows["pct_of_fp32_peak"] = 100 * rows["gflops"] / 64000
    out = add_regime(rows, ceilings, None).set_index("size")
    assert out.loc[4096, "regime"] == "compute"
    assert out.loc[8192, "regime"] == "compute"  # 1.00x the GFLOP/s of n = 4096
    assert out.loc[8192, "regime_basis"].startswith("n = 4096: ")
    assert out.loc[256, "regime"] == "latency"  # 0.02x: its own timing decides
    assert out.loc[4096, "lens"] == "compute"
    assert rows.columns.tolist()[-1] == "pct_of_fp32_peak"  # input left as it was


# --- steps: one primary, ranked by how much of the change each factor makes -------------


def test_the_largest_factor_in_the_direction_of_the_change_is_primary():
    a = launch()  # long_scoreboard: 6 of 10 cycles per instruction
    b = launch(ncu_time_us=72.0, cycles_per_issue=6.0, stall_long_scoreboard=2.0)
    ranked, total = step_causes(a, b)
    assert ranked[0].rule == "memory_latency"
    assert 0 < ranked[0].share <= 1.0 and total < 0
    assert [f.rule for f in ranked].count("memory_latency") == 1


def test_a_step_that_multiplies_its_instructions_is_named_after_the_count():
    """x18 instructions and x18 loads at flat stalls each: the two counts are the
    whole change, each quoted with its own count (the waits on global memory, 7 of
    the 10 cycles, with the load requests; the rest with the issued instructions);
    no load latency finding."""
    a = launch(threads_per_inst=32.0)
    b = launch(
        inst_executed=18e8, global_ld_requests=18e6, global_ld_sectors=18 * 4e6,
        ncu_time_us=18 * 120.0, threads_per_inst=17.8,
    )  # fmt: skip
    ranked, total = step_causes(a, b)
    by = {f.rule: f for f in ranked}
    assert total > 0 and ranked[0].rule == "global_loads"
    assert by["global_loads"].share == pytest.approx(0.7, abs=0.02)
    assert by["instruction_count"].share == pytest.approx(0.3, abs=0.02)
    assert (by["global_loads"].before, by["global_loads"].after) == (1e6, 18e6)
    text = render("global_loads", by["global_loads"].params)
    assert "global load requests 1.00 M -> 18.00 M (x18.00" in text
    count = by["instruction_count"]
    assert (count.before, count.after) == (1e8, 18e8)
    text = render(count.rule, count.params)
    assert "x18.00" in text and "`smsp__inst_executed.sum`" in text
    assert "32.0 -> 17.8" in text
    assert "smsp__thread_inst_executed_per_inst_executed.ratio" in text
    assert not {"memory_latency", "uncoalesced_loads"} & set(by)
    # the lanes not recorded: said, not guessed
    b = launch(inst_executed=18e8, global_ld_requests=18e6, global_ld_sectors=7.2e7,
               ncu_time_us=2160.0)  # fmt: skip
    ranked, _ = step_causes(launch(), b)
    (count,) = [f for f in ranked if f.rule == "instruction_count"]
    assert "not measured" in render(count.rule, count.params)


def test_a_count_factor_quotes_the_count_it_counted_and_its_direction():
    """Jacobi-2D v2 -> v3's shape: fewer load requests (x0.88) while the issued
    instructions rose (x1.18); the waits on global memory fell with the requests.
    The request count is its own factor and saved time; the instruction count rose
    and is never said to have saved any."""
    a = launch(inst_executed=8e7, global_ld_requests=8.4e6, global_ld_sectors=3.8e7,
               ncu_time_us=96.0)  # fmt: skip
    # long_scoreboard 57 -> 39 warp-cycles per request: both halves fell
    b = launch(inst_executed=9.4e7, global_ld_requests=7.3e6, global_ld_sectors=3.4e7,
               stall_long_scoreboard=3.0, cycles_per_issue=7.0,
               ncu_time_us=80.0)  # fmt: skip
    ranked, total = step_causes(a, b)
    by = {f.rule: f for f in ranked}
    assert total < 0
    loads = by["global_loads"]
    assert (loads.before, loads.after) == (8.4e6, 7.3e6) and loads.share > 0
    assert "global load requests 8.40 M -> 7.30 M (x0.87" in render(
        loads.rule, loads.params
    )
    assert loads.metric == "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"
    terms = step_terms(a, b)
    assert terms["instructions"] > 0  # the issued instructions' count: added time


def test_more_instructions_waiting_less_each_are_the_count_not_the_loads():
    """SpMV's warp-per-row step: x18 instructions, long_scoreboard per instruction 64 ->
    24 and its loads coalesced: the count, not "uncoalesced loads"."""
    a = launch(
        cycles_per_issue=73.0, stall_long_scoreboard=64.0, stall_lg_throttle=5.0,
        stall_mio_throttle=1.0, ld_bytes_per_sector=5.9, sectors_per_request=21.7,
        ncu_time_us=900.0,
    )  # fmt: skip
    b = launch(
        inst_executed=18e8, cycles_per_issue=27.0, stall_long_scoreboard=24.0,
        stall_lg_throttle=0.0, stall_mio_throttle=0.5, stall_drain=0.5,
        ld_bytes_per_sector=14.5, sectors_per_request=1.6, ncu_time_us=5960.0,
        global_ld_requests=5.5e6,
    )  # fmt: skip
    ranked, total = step_causes(a, b)
    # x5.5 load requests at about the same wait each (6,400 -> 7,855 cycles): the
    # loads' count, counted per request (narrower requests each pay the latency)
    assert total > 0 and ranked[0].rule == "global_loads"
    assert ranked[0].share > 0.5  # most of the change
    assert (ranked[0].before, ranked[0].after) == (1e6, 5.5e6)
    # the loads got coalesced: never named as what made it slower (each load request
    # waited a fifth longer: that is the memory latency, a secondary cause)
    assert "uncoalesced_loads" not in [f.rule for f in ranked if f.share > 0]


def test_fewer_instructions_around_the_same_loads_are_not_the_count():
    """Coarsening removes index arithmetic, not loads: the wait per load request fell
    (more bytes in flight), so the loads' wait is named, not the count."""
    a = launch(regime="memory", cycles_per_issue=90.0, stall_long_scoreboard=84.0,
               stall_lg_throttle=0.0, stall_mio_throttle=0.0, stall_drain=4.0,
               pct_of_copy_bw=72.0, ncu_time_us=1070.0)  # fmt: skip
    b = launch(regime="memory", inst_executed=0.79e8, cycles_per_issue=90.0,
               stall_long_scoreboard=84.0, stall_lg_throttle=0.0,
               stall_mio_throttle=0.0, stall_drain=4.0, pct_of_copy_bw=79.0,
               ncu_time_us=845.0)  # fmt: skip
    ranked, total = step_causes(a, b)
    assert total < 0 and ranked[0].rule == "bytes_in_flight"
    assert ranked[0].params["evidence"]["variant"] == "v1"  # named where it was larger


@pytest.mark.parametrize(
    ("before", "after", "rule"),
    [
        ({}, {}, "memory_latency"),  # coalescing as it was: the latency
        ({"ld_bytes_per_sector": 32.0},
         {"ld_bytes_per_sector": 8.0, "sectors_per_request": 16.0},
         "uncoalesced_loads"),  # the loads began wasting 3/4 of each sector
        ({"ld_bytes_per_sector": 8.0}, {"ld_bytes_per_sector": 8.0},
         "memory_latency"),  # as uncoalesced as before: not a coalescing change
        ({"sectors_per_request": 4.0}, {"sectors_per_request": 32.0},
         "uncoalesced_loads"),  # no bytes-per-sector counter: sectors per request
        ({"ld_bytes_per_sector": NAN, "sectors_per_request": NAN},
         {"ld_bytes_per_sector": 8.0}, "memory_latency"),  # cannot be compared
    ],
)  # fmt: skip
def test_doubled_wait_per_instruction_at_a_flat_count_names_the_loads(
    before, after, rule
):
    a = launch(**before)
    b = launch(cycles_per_issue=16.0, stall_long_scoreboard=12.0, ncu_time_us=190.0,
               **after)  # fmt: skip
    ranked, total = step_causes(a, b)
    assert total > 0 and ranked[0].rule == rule
    # warp-cycles per global load request: 6 x 1e8 / 1e6 -> 12 x 1e8 / 1e6
    assert (ranked[0].before, ranked[0].after) == pytest.approx((600.0, 1200.0))
    assert "instruction_count" not in [f.rule for f in ranked]


@pytest.mark.parametrize(
    ("requests", "sectors", "rule"),
    [
        (2.5e5, 4e6, "wider_accesses"),  # float4: a quarter of the requests
        # half the requests, sectors within 20%, but the instructions fell 2.5x: more
        # than halving the requests can explain (scan's removed pass, 23x)
        (5e5, 4.9e6, "instruction_count"),
        (5.1e5, 4e6, "instruction_count"),  # just over half the requests
        (2.5e5, 5.1e6, "instruction_count"),  # other sectors: not the same data
        (NAN, 4e6, "instruction_count"),  # requests not collected
    ],
)
def test_fewer_wider_requests_name_the_instruction_count_by_its_cause(
    requests, sectors, rule
):
    a = launch(global_ld_requests=1e6, global_ld_sectors=4e6)
    b = launch(global_ld_requests=requests, global_ld_sectors=sectors,
               inst_executed=4e7, ncu_time_us=60.0)  # fmt: skip
    ranked, total = step_causes(a, b)
    rules = [f.rule for f in ranked]
    # the issued instructions' count factor, by its name; never both names
    assert rule in rules
    assert {"wider_accesses", "instruction_count"} - {rule} - set(rules)
    if rule == "wider_accesses":
        # the factor is the issued instructions' count: quoted as such
        (wider,) = [f for f in ranked if f.rule == rule]
        assert wider.metric == "smsp__inst_executed.sum"
        assert (wider.before, wider.after) == (1e8, 4e7)
        found = expectation("v2 with 16-byte float4 loads", a, b, ranked, total)
        assert found.params["verdict"]["@"] == "expect_met"
        found = expectation(
            "four outputs per thread", a, b, ranked, total
        )  # coarsening
        assert found.params["verdict"]["@"] == "expect_met"


@pytest.mark.parametrize(
    ("lanes", "inst", "rule"),
    [
        (32.0, 5e7, "idle_lanes"),  # half the lanes idle before: the same work
        (20.0, 8e7, "idle_lanes"),  # a quarter more lanes, the same thread work
        (19.9, 8e7, "instruction_count"),  # just under a quarter more lanes
        (32.0, 2e7, "instruction_count"),  # less work too: not only the lanes
        (NAN, 5e7, "instruction_count"),  # lanes not collected
    ],
)
def test_a_step_that_fills_idle_lanes_names_the_count_by_its_cause(lanes, inst, rule):
    a = launch(threads_per_inst=16.0, inst_executed=1e8)
    # the requests fall with the warp instructions (fewer, fuller warps load the data)
    b = launch(threads_per_inst=lanes, inst_executed=inst, global_ld_requests=inst / 100,
               global_ld_sectors=4e6 * inst / 1e8, ncu_time_us=120.0 * inst / 1e8)  # fmt: skip
    ranked, total = step_causes(a, b)
    rules = [f.rule for f in ranked]
    assert rule in rules
    assert {"idle_lanes", "instruction_count"} - {rule} - set(rules)
    if rule == "idle_lanes":
        found = expectation(
            "sequential addressing keeps warps whole", a, b, ranked, total
        )
        assert found.params["verdict"]["@"] == "expect_met"


def test_removed_bank_conflicts_are_named_from_the_launch_that_had_them():
    a = launch(
        cycles_per_issue=40.0, stall_mio_throttle=31.0, smem_conflict_share=0.84,
        ncu_time_us=470.0,
    )  # fmt: skip
    b = launch(stall_mio_throttle=1.0, smem_conflict_share=0.01)
    ranked, _ = step_causes(a, b)
    assert ranked[0].rule == "bank_conflicts"


def test_a_step_within_two_percent_has_no_change_as_its_primary():
    ranked, _ = step_causes(launch(), launch(ncu_time_us=121.0))
    assert ranked[0].rule == "step_unchanged"
    ranked, total = step_causes(launch(), launch(inst_executed=NAN))
    assert ranked == [] and math.isnan(total)  # not profiled alike: nothing ranked


def test_expectation_compares_the_idea_with_what_moved():
    assert "bank_conflicts" in expected_mechanisms("rows of 33 floats: +1 padding")
    assert "barrier" in expected_mechanisms("v6 with two shared buffers")
    assert expected_mechanisms("no words the rules know") == []


def test_a_replicated_histogram_expects_its_shared_atomics_not_its_global_ones():
    """Copies of a private histogram spread the lanes of the shared atomics; the
    block's merge into the global one stays as it was (histogram v2, v5)."""
    v2 = (
        "Uniform input: 8 padded sub-histograms per block (lane % 8 picks one), "
        "summed at the end: fewer lanes per shared address."
    )
    v5 = "v2's 8 sub-histograms on the skewed input: at most 4 lanes of a warp share"
    for idea in (v2, v5):
        found = expected_mechanisms(idea)
        assert "shared_atomics" in found and "global_atomics" not in found, idea
    private = "each block counts into a shared-memory histogram, then adds its counts"
    assert expected_mechanisms(private) == ["global_atomics"]
    a = launch(cycles_per_issue=40.0, stall_mio_throttle=31.0, smem_conflict_share=0.84,
               ncu_time_us=470.0)  # fmt: skip
    b = launch(stall_mio_throttle=1.0, smem_conflict_share=0.01)
    ranked, total = step_causes(a, b)
    found = expectation("padding removes the conflicts", a, b, ranked, total)
    assert found.params["verdict"]["@"] == "expect_met"
    found = expectation("shuffle the warps", a, b, ranked, total)
    assert found.params["verdict"]["@"] in ("expect_met", "expect_other")


# --- where a variant stands -----------------------------------------------------------


@pytest.mark.parametrize(
    ("kw", "rule"),
    [
        ({"regime": "memory", "regime_ceiling_pct": 95.0}, "at_dram_floor"),
        ({"regime": "memory", "regime_ceiling_pct": 89.9}, "stand_memory"),
        ({"regime": "memory", "regime_ceiling_pct": 95.0, "dram_bytes": NAN},
         "at_dram_floor_timing"),
        ({"regime": "memory", "regime_ceiling_pct": 8.0, "dram_bytes": 1.2e9,
          "dram_pct": 102.0}, "dram_saturated_excess"),
        ({"regime": "compute", "regime_ceiling_pct": 90.0, "pct_of_fp32_peak": 90.0},
         "at_compute_roof"),
        # SGEMM v7 at 4096: 95% of cuBLAS is not the compute roof at 75% of FP32
        ({"regime": "compute", "regime_ceiling_pct": 95.0, "pct_of_fp32_peak": 75.5},
         "at_vendor_rate"),
        ({"regime": "compute", "regime_ceiling_pct": 87.1}, "stand_compute"),
        ({"regime": "latency", "regime_ceiling_pct": 11.0}, "stand_latency"),
        ({"regime": "", "regime_ceiling_pct": 11.0}, None),
        ({"regime": "memory", "regime_ceiling_pct": NAN}, None),
    ],
)  # fmt: skip
def test_stand_and_its_stop_condition(kw, rule):
    found = stand.stand(launch(regime_ceiling="copy_bw", roof_time_us=10.0, **kw))
    assert (found.rule if found else None) == rule


def test_plan_items_never_promise_less_than_the_roof():
    items = stand.plan(launch(roof_time_us=100.0, regime="memory"))
    assert items and all(f.params["without"] >= 100.0 for f in items)
    assert [f.rule for f in stand.plan(launch(profiled=False))] == ["plan_unprofiled"]


def test_step_verdict_has_a_band_for_no_change():
    assert stand.step_verdict(1.03) == "paid"
    assert stand.step_verdict(1.01) == "no_gain"
    assert stand.step_verdict(0.97) == "not_paid"


# --- records --------------------------------------------------------------------------


def test_records_render_in_both_languages_from_their_params():
    f = C.cause_finding(launch(), C.causes(launch())[0])
    (stored,) = place(Where("fam", "v1", 1024, "baseline"), [f], primary=True)
    assert stored["role"] == "primary" and stored["rule"] == "memory_latency"
    with language("zh"):
        zh = render(f.rule, f.params)
    assert "全局内存延迟" in zh and stored["message"].startswith("**Global-memory")
    assert row(Where("f", "v", 1, "plan"), Finding("plan_unprofiled",
               {"roof": 1.0, "t": 2.0}), "info", 1)["message"]  # fmt: skip


def test_fuller_lanes_come_before_wider_requests():
    # a divergence fix also halves the requests for the same sectors: lanes, not width
    a = launch(threads_per_inst=16.0, inst_executed=1e8)
    b = launch(threads_per_inst=32.0, inst_executed=5e7, global_ld_requests=5e5,
               ncu_time_us=60.0)  # fmt: skip
    rules = [f.rule for f in step_causes(a, b)[0]]
    assert "idle_lanes" in rules and "wider_accesses" not in rules


def test_a_count_that_made_the_launch_slower_keeps_its_plain_name():
    # fuller lanes, but 2.4x the load requests (SpMV's ELL on the skewed matrix): the
    # count factor slowed the launch and is not "fewer idle lanes"
    a = launch(threads_per_inst=18.0, inst_executed=8e7, global_ld_requests=5.3e6,
               ncu_time_us=170.0)  # fmt: skip
    b = launch(threads_per_inst=32.0, inst_executed=4.2e7, global_ld_requests=12.7e6,
               stall_long_scoreboard=30.0, cycles_per_issue=34.0,
               ncu_time_us=260.0)  # fmt: skip
    ranked = step_causes(a, b)[0]
    # the requests' count moved the time up, quoted with the requests; the issued
    # instructions fell with the fuller lanes (the same thread work): that part is
    # "fewer idle lanes", and made the launch faster
    count = [f for f in ranked if f.rule == "global_loads"]
    assert count and count[0].share > 0
    assert (count[0].before, count[0].after) == (5.3e6, 12.7e6)
    lanes = [f for f in ranked if f.rule == "idle_lanes"]
    assert not lanes or lanes[0].share < 0
    assert "wider_accesses" not in {f.rule for f in ranked}


def test_dram_excess_names_reads_and_writes_without_assuming_re_reads():
    # a local array written back to DRAM: reads at the ideal, writes twice it
    row = launch(dram_bytes=2.0e8, ideal_bytes=1.34e8, dram_read_bytes=0.67e8,
                 dram_write_bytes=1.33e8)  # fmt: skip
    (found,) = launch_state.dram_state(row)
    with language("en"):
        text = render(found.rule, found.params)
    assert "67.0 MB read, 133.0 MB written" in text
    assert "re-reads, or write-backs" in text


@pytest.mark.parametrize(
    ("l1", "verdict"),
    [
        (5.0e8, "dram_absorbed_by"),  # a stencil: L1 asked for 5x the DRAM bytes
        (1.5e8, "dram_absorbed_by"),
        (
            1.49e8,
            "dram_at_ideal",
        ),  # a reduction reads each byte once: nothing to absorb
        (NAN, "dram_at_ideal"),
    ],
)
def test_the_caches_absorb_re_reads_only_where_l1_was_asked_for_more(l1, verdict):
    row = launch(dram_bytes=1.0e8, ideal_bytes=1.0e8, l1_bytes_moved=l1)
    (found,) = launch_state.dram_state(row)
    assert found.params["verdict"]["@"] == verdict
    with language("en"):
        text = render(found.rule, found.params)
    assert ("absorb the re-reads" in text) == (verdict == "dram_absorbed_by")
    assert "re-read from" not in text and "crosses DRAM more than once" not in text


@pytest.mark.parametrize(
    ("achieved", "fires"), [(50.0, True), (26.0, True), (51.0, False), (NAN, False)]
)
def test_a_step_says_its_variant_holds_at_most_half_the_warps_it_could(achieved, fires):
    row = launch(achieved_occupancy_pct=achieved, theoretical_occupancy_pct=100.0,
                 waves_per_sm=248.0)  # fmt: skip
    found = launch_state.half_empty(row)
    assert [f.rule for f in found] == (["occupancy_gap"] if fires else [])


def test_an_expected_mechanism_whose_own_counter_did_not_move_is_said():
    """Reduction v0 -> v1 on the H200: sequential addressing was expected to leave
    fewer lanes idle; its lanes not predicated off went 20.3 -> 20.0 of 32 while its
    instructions fell, so "as expected" is said with the lanes that did not."""
    a = launch(lanes_per_inst=20.32, inst_executed=2.064e7, ncu_time_us=40.4)
    b = launch(lanes_per_inst=20.02, inst_executed=2.012e7, ncu_time_us=39.5)
    ranked, total = step_causes(a, b)
    found = expectation("sequential addressing keeps warps whole", a, b, ranked, total)
    said = render("", found.params)
    assert "But fewer idle lanes were expected" in said
    assert "20.3 -> 20.0 of 32" in said
    fuller = launch(lanes_per_inst=31.3, inst_executed=2.012e7, ncu_time_us=39.5)
    ranked, total = step_causes(a, fuller)
    found = expectation("sequential addressing keeps warps whole", a, fuller, ranked,
                        total)  # fmt: skip
    assert "But" not in render("", found.params)


def test_a_latency_basis_prints_the_moderate_line_its_side_missed():
    """SGEMM v5 at n = 1024 on the H200: AI 170.67, 2x past the ridge 15.1, at 21% of
    the FP32 peak; v5 at n = 4096 (58%) is compute-bound by the same rule's 40% line,
    so the latency basis says that line too, not only "< 60%"."""
    evidence = _evidence(
        memory={"lts": 7.0},
        compute={"measured_flops/t/fp32_gflops": 21.0},
        ai=170.67,
        ridge=15.1,
    )
    regime, basis = classify(evidence)
    assert regime == "latency"
    assert basis.endswith(
        "; AI 170.67 >= 2x ridge 15.1, measured_flops/t/fp32_gflops = 21% < 40%"
    )
    compute = _evidence(
        compute={"ideal_flops/t/fp32_gflops": 58.0}, ai=682.67, ridge=15.1
    )
    assert classify(compute) == (
        "compute",
        "AI 682.67 >= 2x ridge 15.1; ideal_flops/t/fp32_gflops = 58% >= 40%",
    )


def test_an_expected_occupancy_that_fell_is_said():
    """SGEMM v6 -> v7 on the H200: v6's largest cause was low occupancy, so more
    resident warps were expected; v7's achieved occupancy went 24% -> 12%. Here an
    idea that names the occupancy, at those numbers."""
    a = launch(achieved_occupancy_pct=24.3, ncu_time_us=3180.0)
    b = launch(achieved_occupancy_pct=12.4, ncu_time_us=2830.0)
    ranked, total = step_causes(a, b)
    found = expectation("so that more blocks fit on an SM", a, b, ranked, total)
    said = render("", found.params)
    assert "more resident warps were expected" in said
    assert "24% -> 12%" in said


def test_an_own_counter_already_at_its_best_is_not_said():
    """vecadd at 94% -> 95% achieved occupancy: no more warps to expect."""
    a = launch(achieved_occupancy_pct=94.0, ncu_time_us=100.0)
    b = launch(achieved_occupancy_pct=95.0, ncu_time_us=90.0)
    ranked, total = step_causes(a, b)
    found = expectation("so that more blocks fit on an SM", a, b, ranked, total)
    assert "more resident warps were expected" not in render("", found.params)
