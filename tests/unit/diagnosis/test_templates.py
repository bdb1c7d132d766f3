"""Every fixed sentence of the findings against its precondition: each template is said
of a constructed launch (or step) whose numbers bear it out, and not said of one whose
numbers miss its threshold. The causes' own sentences (mechanisms and their evidence)
are in test_findings.py and test_efficiency.py; these are the facts listed beside them.
"""

import math

import pandas as pd
import pytest

from constructed import launch
from nsightflow.diagnosis import launch_state, moves, patterns, stand
from nsightflow.diagnosis.causes import name_group
from nsightflow.diagnosis.record import Finding
from nsightflow.diagnosis.step_group import params_changed
from nsightflow.diagnosis.steps import expectation, step_causes

NAN = math.nan


def rules(found):
    return {f.rule for f in found}


def keys(found):
    """Every template key a list of findings uses, nested messages included."""
    out = set()

    def walk(value):
        if isinstance(value, dict):
            if "@" in value:
                out.add(value["@"])
            for v in value.values():
                walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    for f in found:
        out.add(f.rule)
        walk(dict(f.params))
    return out


# (name, findings where the numbers bear it out, where they miss it, the template)
LAUNCH_FACTS = [
    (
        "lanes below 75%",
        lambda: patterns.pattern_state(launch(lane_efficiency_pct=60.0)),
        lambda: patterns.pattern_state(launch(lane_efficiency_pct=75.0)),
        "lanes_low",
    ),
    (
        "atomics in the L2",
        lambda: patterns.pattern_state(launch(l2_atomic_sectors=1e5)),
        lambda: patterns.pattern_state(launch(l2_atomic_sectors=0.0)),
        "l2_atomics",
    ),
    (
        "theoretical occupancy below 100%",
        lambda: launch_state.occupancy_state(
            launch(theoretical_occupancy_pct=50.0, occ_limit_registers=2.0)
        ),
        lambda: launch_state.occupancy_state(
            launch(theoretical_occupancy_pct=100.0, occ_limit_registers=2.0)
        ),
        "occupancy_capped",
    ),
    (
        "achieved 20 points below theoretical over many waves",
        lambda: launch_state.occupancy_state(
            launch(achieved_occupancy_pct=70.0, waves_per_sm=10.0)
        ),
        lambda: launch_state.occupancy_state(
            launch(achieved_occupancy_pct=70.0, waves_per_sm=3.0)  # a tail, maybe
        ),
        "occupancy_gap",
    ),
    (
        "register spills",
        lambda: launch_state.spills({"spill_store_bytes": 8, "registers": 255}),
        lambda: launch_state.spills({"spill_store_bytes": 0, "spill_load_bytes": 0}),
        "spills",
    ),
    (
        "DRAM more than the ideal: re-read",
        lambda: launch_state.dram_state(launch(dram_bytes=1.3e8)),
        lambda: launch_state.dram_state(launch(dram_bytes=1.2e8)),
        "dram_reread",
    ),
    (
        "DRAM below the ideal",
        lambda: launch_state.dram_state(launch(dram_bytes=0.79e8)),
        lambda: launch_state.dram_state(launch(dram_bytes=0.8e8)),
        "dram_below_ideal",
    ),
]

# (name, step findings where the numbers bear it out, where they miss it, template)
STEP_FACTS = [
    (
        "sectors per request moved by more than 0.5",
        lambda: moves.traffic(launch(), launch(sectors_per_request=4.6)),
        lambda: moves.traffic(launch(), launch(sectors_per_request=4.5)),
        "sectors_moved",
    ),
    (
        "DRAM bytes moved by more than 5%",
        lambda: moves.traffic(launch(), launch(dram_bytes=1.06e8)),
        lambda: moves.traffic(launch(), launch(dram_bytes=1.05e8)),
        "dram_moved",
    ),
    (
        "achieved occupancy moved by more than 5 points",
        lambda: moves.traffic(launch(), launch(achieved_occupancy_pct=56.0)),
        lambda: moves.traffic(launch(), launch(achieved_occupancy_pct=55.0)),
        "occupancy_moved",
    ),
    (
        "registers changed",
        lambda: moves.traffic(launch(registers=32.0), launch(registers=40.0)),
        lambda: moves.traffic(launch(registers=32.0), launch(registers=32.0)),
        "registers_moved",
    ),
    (
        "stores became coalesced",
        lambda: moves.traffic(
            launch(st_bytes_per_sector=4.0, st_sectors_per_request=32.0),
            launch(st_bytes_per_sector=32.0, st_sectors_per_request=4.0),
        ),
        lambda: moves.traffic(
            launch(st_bytes_per_sector=32.0), launch(st_bytes_per_sector=32.0)
        ),
        "stores_fixed",
    ),
    (
        "stores stopped being coalesced",
        lambda: moves.traffic(
            launch(st_bytes_per_sector=32.0, st_sectors_per_request=4.0),
            launch(st_bytes_per_sector=4.0, st_sectors_per_request=32.0),
        ),
        lambda: moves.traffic(
            launch(st_bytes_per_sector=4.0), launch(st_bytes_per_sector=4.0)
        ),
        "stores_broken",
    ),
    (
        "conflicts rose to a costly share",
        lambda: moves.conflicts(
            launch(smem_conflicts_ld=0.0),
            launch(smem_conflicts_ld=1e6, smem_conflict_share=0.38),
        ),
        lambda: moves.conflicts(
            launch(smem_conflicts_ld=1e6, smem_conflict_share=0.38),
            launch(smem_conflicts_ld=1e6, smem_conflict_share=0.38),
        ),
        "conflicts_costly",
    ),
    (
        "conflicts rose but stay a small share",
        lambda: moves.conflicts(
            launch(smem_conflicts_ld=0.0),
            launch(smem_conflicts_ld=1e5, smem_conflict_share=0.05),
        ),
        lambda: moves.conflicts(
            launch(smem_conflicts_ld=0.0),
            launch(smem_conflicts_ld=1e6, smem_conflict_share=0.38),
        ),
        "conflicts_minor",
    ),
    (
        "conflicts removed (below 5% after)",
        lambda: moves.conflicts(
            launch(smem_conflicts_ld=1e6, smem_conflict_share=0.38),
            launch(smem_conflicts_ld=1e4, smem_conflict_share=0.01),
        ),
        lambda: moves.conflicts(
            launch(smem_conflicts_ld=1e6, smem_conflict_share=0.38),
            launch(smem_conflicts_ld=4e5, smem_conflict_share=0.2),
        ),
        "conflicts_removed",
    ),
    (
        "a stall moved by half a cycle per instruction",
        lambda: moves.stall_moves(launch(), launch(stall_long_scoreboard=6.5)),
        lambda: moves.stall_moves(launch(), launch(stall_long_scoreboard=6.4)),
        "stall_rose",
    ),
    (
        "a stall fell by half a cycle per instruction",
        lambda: moves.stall_moves(launch(), launch(stall_long_scoreboard=5.5)),
        lambda: moves.stall_moves(launch(), launch(stall_long_scoreboard=5.6)),
        "stall_fell",
    ),
    (
        "the regime changed",
        lambda: moves.regime_change(launch(regime="latency"), launch(regime="memory")),
        lambda: moves.regime_change(launch(regime="memory"), launch(regime="memory")),
        "regime_changed",
    ),
    (
        "lane efficiency rose by 5 points",
        lambda: patterns.divergence_findings(
            launch(lane_efficiency_pct=60.0), launch(lane_efficiency_pct=65.0)
        ),
        lambda: patterns.divergence_findings(
            launch(lane_efficiency_pct=60.0), launch(lane_efficiency_pct=64.9)
        ),
        "lanes_rose",
    ),
    (
        "lane efficiency fell by 5 points",
        lambda: patterns.divergence_findings(
            launch(lane_efficiency_pct=60.0), launch(lane_efficiency_pct=55.0)
        ),
        lambda: patterns.divergence_findings(
            launch(lane_efficiency_pct=60.0),
            launch(lane_efficiency_pct=0.0),  # n/a
        ),
        "lanes_fell",
    ),
    (
        "branch uniformity moved (0% is n/a)",
        lambda: patterns.divergence_findings(
            launch(branch_uniform_pct=80.0), launch(branch_uniform_pct=100.0)
        ),
        lambda: patterns.divergence_findings(
            launch(branch_uniform_pct=0.0), launch(branch_uniform_pct=100.0)
        ),
        "branches_moved",
    ),
    (
        "instructions moved by 20%",
        lambda: patterns.divergence_findings(launch(), launch(inst_executed=1.2e8)),
        lambda: patterns.divergence_findings(launch(), launch(inst_executed=1.19e8)),
        "instructions_moved",
    ),
    (
        "L2 atomics changed by a quarter",
        lambda: patterns.atomic_findings(
            launch(l2_atomic_sectors=1e5), launch(l2_atomic_sectors=1.3e5)
        ),
        lambda: patterns.atomic_findings(
            launch(l2_atomic_sectors=1e5), launch(l2_atomic_sectors=1.1e5)
        ),
        "l2_atomics_moved",
    ),
    (
        "shared atomics changed by a quarter",
        lambda: patterns.atomic_findings(
            launch(shared_atom_inst=1e5), launch(shared_atom_inst=1.3e5)
        ),
        lambda: patterns.atomic_findings(
            launch(shared_atom_inst=1e5), launch(shared_atom_inst=1.2e5)
        ),
        "shared_atomics_moved",
    ),
    (
        "shared atomic conflicts changed by a quarter",
        lambda: patterns.atomic_findings(
            launch(smem_conflicts_atom=1e5), launch(smem_conflicts_atom=2e5)
        ),
        lambda: patterns.atomic_findings(
            launch(smem_conflicts_atom=1e5), launch(smem_conflicts_atom=1.2e5)
        ),
        "atomic_conflicts_moved",
    ),
    (
        "a compile parameter both variants have changed",
        lambda: params_changed({"BM": 128, "BK": 8}, {"BM": 64, "BK": 8, "WN": 8}),
        lambda: params_changed({"BM": 128}, {"BM": 128, "WN": 8}),
        "step_params_changed",
    ),
]


@pytest.mark.parametrize(
    ("name", "holds", "misses", "template"),
    LAUNCH_FACTS + STEP_FACTS,
    ids=[f[0] for f in LAUNCH_FACTS + STEP_FACTS],
)
def test_each_fact_is_said_only_where_its_numbers_hold(name, holds, misses, template):
    assert template in keys(holds()), name
    assert template not in keys(misses()), name


def _rules_table(rows):
    return pd.DataFrame(
        rows, columns=["variant", "size", "type", "rule", "speedup_pct"]
    )


def test_ncu_rules_are_said_to_appear_go_or_move_only_as_they_did():
    table = _rules_table(
        [
            ("a", 1, "optimization", "Kept", 20.0),
            ("b", 1, "optimization", "Kept", 30.0),
            ("a", 1, "optimization", "Gone", 10.0),
            ("b", 1, "optimization", "New", 10.0),
            ("a", 1, "optimization", "Still", 20.0),
            ("b", 1, "optimization", "Still", 29.9),
        ]
    )
    found = moves.rule_changes(table, "a", "b", 1)
    said = {(f.rule, f.metric) for f in found}
    assert said == {("rule_new", "New"), ("rule_gone", "Gone"), ("rule_moved", "Kept")}


@pytest.mark.parametrize(
    ("x", "y", "l2", "reason"),
    [
        (3000.0, 2000.0, 5e7, "sweep_left_l2"),  # the working set crossed the L2
        (3000.0, 2000.0, 1e12, "sweep_unexplained"),  # it did not: no L2 story
        (3000.0, 2600.0, 5e7, None),  # 13% is under the 15% worth a line
    ],
)
def test_a_throughput_drop_is_blamed_on_the_l2_only_where_the_data_left_it(
    x, y, l2, reason
):
    rows = pd.DataFrame(
        [
            {"variant": "v", "size": 1024, "regime": "memory", "gbps": x,
             "ideal_bytes": 4e7},
            {"variant": "v", "size": 4096, "regime": "memory", "gbps": y,
             "ideal_bytes": 6.4e8},
        ]
    )  # fmt: skip
    found = [f for f in stand.sweep(rows, l2) if f.rule == "sweep_drop"]
    assert (found[0].params["reason"]["@"] if found else None) == reason


@pytest.mark.parametrize(
    ("kw", "ev"),
    [
        ({"regime": "memory"}, "ev_bytes_in_flight"),  # memory-bound: bytes in flight
        ({"regime": "latency"}, "ev_memory_latency"),  # else latency, not bandwidth
        ({"regime": "memory", "sectors_per_request": NAN}, "ev_bytes_in_flight_nospr"),
    ],
)
def test_memory_waits_read_as_bandwidth_only_in_memory_bound_launches(kw, ev):
    assert name_group(launch(**kw), "memory_wait")[1]["@"] == ev


@pytest.mark.parametrize(
    ("after", "verdict"),
    [
        ({"stall_mio_throttle": 0.0, "ncu_time_us": 40.0}, "expect_met"),
        ({"stall_long_scoreboard": 0.0, "ncu_time_us": 108.0}, "expect_other"),
        ({"stall_long_scoreboard": 9.0, "ncu_time_us": 220.0}, "expect_not_met"),
        ({"stall_mio_throttle": 0.0, "stall_long_scoreboard": 30.0,
          "ncu_time_us": 250.0}, "expect_offset"),
        ({"ncu_time_us": 121.0}, "expect_unchanged"),
    ],
)  # fmt: skip
def test_expected_against_observed_says_what_the_ranking_shows(after, verdict):
    # bank conflicts are the largest cause before the step, and padding its idea
    a = launch(stall_long_scoreboard=1.0, stall_mio_throttle=8.0,
               smem_conflict_share=0.4, shared_ld_inst=1e6)  # fmt: skip
    b = {**a, "smem_conflict_share": 0.01, **after}
    ranked, total = step_causes(a, b)
    found = expectation("pad the rows", a, b, ranked, total)
    assert found.params["verdict"]["@"] == verdict


def test_nothing_is_expected_where_neither_the_idea_nor_a_diagnosis_names_it():
    a = launch(stall_long_scoreboard=1.0, stall_mio_throttle=8.0)
    b = {**a, "stall_mio_throttle": 0.0, "ncu_time_us": 40.0}
    ranked, total = step_causes(a, b)
    unprofiled = {**a, "inst_executed": NAN}  # no causes ranked before the step
    found = expectation("no words the rules know", unprofiled, b, ranked, total)
    assert found.params["verdict"]["@"] == "expect_unknown"


def test_a_finding_that_names_its_own_template_keeps_its_fields():
    f = Finding("regime_changed", params={"before": {"@": "regime_memory"}})
    assert keys([f]) == {"regime_changed", "regime_memory"}
