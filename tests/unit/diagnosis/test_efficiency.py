"""Efficiency causes of one launch on constructed rows: idle lanes, instruction overhead,
the busy pipe, the MIO's source, loads and stores strided together. Each is said where
its precondition holds and not where it just fails.
"""

import math

import pytest

from constructed import launch
from nsightflow.diagnosis import causes as C
from nsightflow.diagnosis import efficiency as E
from nsightflow.diagnosis.advice import fix_key
from nsightflow.diagnosis.model import time_split
from nsightflow.diagnosis.record import render
from nsightflow.diagnosis.stand import regime_words
from nsightflow.i18n import language

NAN = math.nan


def fma_kernel(**kw):
    """An issue-bound FMA kernel (the divergent family's baseline, by its numbers).

    Issue slots 98% busy, FMA pipe 95%; selected + not_selected are 8 of 10 cycles per
    instruction; 16.5 of 32 lanes work; 90% of the thread instructions are FFMAs.
    """
    row = launch(
        regime="compute",
        ideal_flops=1e10,
        issue_pct=98.0,
        fma_pct=95.0,
        stall_long_scoreboard=0.5,
        stall_lg_throttle=0.0,
        stall_mio_throttle=0.0,
        stall_drain=0.0,
        stall_not_selected=7.0,
        stall_wait=1.0,
        threads_per_inst=16.5,
        lanes_per_inst=16.5,
        ffma=0.9 * 1e8 * 16.5,
    )
    row.update(kw)
    return row


def test_idle_lanes_rank_first_in_an_issue_bound_divergent_kernel():
    row = fma_kernel()
    found = C.causes(row)
    assert found[0].mechanism == "idle_lanes"
    shares = {c.mechanism: c.share for c in found}
    # the issue time is split, never counted twice
    assert sum(shares.values()) <= 1.0 + 1e-9
    split = time_split(row)
    issue_us = split["selected"] + split["not_selected"] + split["math_pipe_throttle"]
    assert found[0].time_us == pytest.approx((1 - 16.5 / 32) * issue_us)
    with language("en"):
        text = render(found[0].mechanism, C.cause_finding(row, found[0]).params)
    assert "16.5 of 32 lanes" in text and "make the branch uniform per warp" in text
    # the issue time left is the FMA work itself: no "fewer address instructions"
    assert fix_key(row, "issue_bound") == "fix_issue_bound_work"


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({}, True),
        (
            {"issue_pct": 59.0, "fma_pct": 59.0},
            False,
        ),  # nothing busy: lanes cost nothing
        ({"threads_per_inst": 24.0, "lanes_per_inst": 24.0}, False),  # 75% of lanes
        ({"threads_per_inst": NAN, "lanes_per_inst": NAN}, False),  # not measured
    ],
)
def test_idle_lanes_only_where_issue_or_a_pipe_limits_and_lanes_idle(kw, expected):
    found = {c.mechanism for c in C.causes(fma_kernel(**kw))}
    assert ("idle_lanes" in found) == expected


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        ({"ffma": 0.11 * 1e8 * 32, "threads_per_inst": 32.0, "lanes_per_inst": 32.0},
         True),  # conv2d v0: 11% of the thread instructions are FP32 arithmetic
        ({"ffma": 0.11 * 1e8 * 32, "threads_per_inst": 32.0, "lanes_per_inst": 32.0,
          "regime": "latency"}, False),  # not compute-bound
        ({"ffma": 0.0, "threads_per_inst": 32.0, "lanes_per_inst": 32.0}, False),
        ({"ffma": 0.11 * 1e8 * 32, "threads_per_inst": 32.0, "lanes_per_inst": 32.0,
          "ideal_flops": 0.0}, False),  # a histogram's work is no FLOPs
    ],
)  # fmt: skip
def test_instruction_overhead_only_for_flop_work_in_compute_bound_launches(
    kw, expected
):
    found = C.causes(fma_kernel(**kw))
    assert ("instruction_overhead" in {c.mechanism for c in found}) == expected
    if expected:
        assert found[0].mechanism == "instruction_overhead"
        assert fix_key(fma_kernel(**kw), "issue_bound") == "fix_issue_bound_work"


@pytest.mark.parametrize(
    ("pipes", "expected"),
    [
        ({"pipe_fp64_pct": 92.0, "fma_pct": 10.0}, "fp64_pipe"),
        ({"pipe_xu_pct": 70.0, "fma_pct": 30.0}, "xu_pipe"),
        ({"fma_pct": 61.0, "pipe_alu_pct": 40.0}, "fp32_pipe"),
        ({"pipe_fp64_pct": 59.0, "fma_pct": 10.0}, "math_pipe_other"),
    ],
)
def test_a_busy_math_pipe_is_named_by_the_busiest_pipe(pipes, expected):
    assert C.name_group(launch(**pipes), "math_pipe")[0] == expected


def test_the_busiest_pipe_is_said_in_words():
    row = launch(pipe_fp64_pct=92.0, fma_pct=10.0, pipe_alu_pct=20.0)
    assert E.busiest_pipe(row) == ("fp64", 92.0)
    with language("en"):
        text = render("x", {"@": "pipe_busiest", **E.pipe_words(row)})
    assert text.startswith("the busiest pipe is FP64 (double precision) at 92%")


@pytest.mark.parametrize(
    ("kw", "expected"),
    [
        # no shared memory, shuffles counted: the MIO waits are the shuffles'
        ({"shared_ld_inst": 0.0, "shared_st_inst": 0.0, "shuffle_thread_inst": 1.2e9,
          "inst_pipe_xu": 0.0, "threads_per_inst": 32.0}, "mio_shuffle"),
        ({"shared_ld_inst": 0.0, "shared_st_inst": 0.0, "shuffle_thread_inst": 0.0,
          "inst_pipe_xu": 4e6, "threads_per_inst": 32.0}, "mio_special"),
        # more shared-memory instructions than shuffles: shared memory
        ({"shared_ld_inst": 5e6, "shared_st_inst": 1e6, "shuffle_thread_inst": 3.2e7,
          "inst_pipe_xu": 0.0, "threads_per_inst": 32.0}, "shared_pipe"),
        # an older recording: the sampled SASS decides
        ({"shared_ld_inst": 0.0, "shared_st_inst": 0.0, "mix_shuffle": 0.2,
          "mix_shared": 0.0, "mix_mufu": 0.0}, "mio_shuffle"),
        # no shared memory and no known MIO class: neither shared memory nor a guess
        ({"shared_ld_inst": 0.0, "shared_st_inst": 0.0}, "mio_other"),
    ],
)  # fmt: skip
def test_mio_waits_are_named_by_the_instructions_that_fill_the_queue(kw, expected):
    name, evidence = C.name_group(launch(**kw), "shared_pipe")
    assert name == expected
    if expected in ("mio_shuffle", "mio_special"):
        with language("en"):
            text = render("x", evidence)
        assert "shared memory" not in text.split("(")[0] or "shared memory 0%" in text


def test_strided_loads_and_stores_are_named_together():
    both = launch(ld_bytes_per_sector=4.0, st_bytes_per_sector=4.0,
                  sectors_per_request=32.0, st_sectors_per_request=32.0)  # fmt: skip
    for group in ("lsu_queue", "store_drain", "memory_wait"):
        name = C.name_group(both, group)[0]
        assert name == ("uncoalesced_access" if group != "store_drain" else name)
    assert C.name_group(both, "lsu_queue")[0] == "uncoalesced_access"
    loads_only = launch(ld_bytes_per_sector=4.0, st_bytes_per_sector=32.0,
                        sectors_per_request=32.0)  # fmt: skip
    assert C.name_group(loads_only, "lsu_queue")[0] == "uncoalesced_loads"
    stores_only = launch(ld_bytes_per_sector=32.0, st_bytes_per_sector=4.0,
                         st_sectors_per_request=32.0)  # fmt: skip
    assert C.name_group(stores_only, "store_drain")[0] == "uncoalesced_stores"


@pytest.mark.parametrize(
    ("kw", "key"),
    [
        ({"sectors_per_request": 16.0}, "fix_bytes_in_flight_wide"),  # float4 already
        ({"sectors_per_request": 4.4}, "fix_bytes_in_flight"),
        ({"sectors_per_request": NAN}, "fix_bytes_in_flight"),
    ],
)
def test_float4_is_not_advised_for_loads_that_are_already_16_bytes(kw, key):
    assert fix_key(launch(**kw), "bytes_in_flight") == key
    with language("en"):
        text = render("x", {"@": key})
    assert ("16-byte (float4)" in text) == (key == "fix_bytes_in_flight")


@pytest.mark.parametrize(
    ("kw", "words"),
    [
        # the regime is the roofline's (FP32 rate, DRAM, L2): a compute row is
        # compute-bound whatever its pipes; they are its limiter
        ({"regime": "compute", "fma_pct": 11.6}, "regime_compute"),
        ({"regime": "compute", "fma_pct": 69.0}, "regime_compute"),
        ({"regime": "compute", "fma_pct": 10.0, "pipe_fp64_pct": 80.0},
         "regime_compute"),
        ({"regime": "memory"}, "regime_memory"),
    ],
)  # fmt: skip
def test_the_regime_words_are_the_roofline_s_regime(kw, words):
    assert regime_words(launch(**kw))["@"] == words
