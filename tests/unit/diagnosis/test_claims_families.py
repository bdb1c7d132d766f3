"""Five families the rules were not written against, measured on the H200 (run 32,
tests/data/h200_claims): each baseline's and each step's primary cause, with its line.

diverge: lanes idle in an issue-bound FMA kernel; mio: MIO waits from shuffles and
special functions without shared memory; fp64: an unsuffixed literal that moves float
code to FP64; fused: a step that removes a launch; strided: loads and stores strided
together. Replayed here from the recording: parse -> analyze, as the workflow does.
"""

import json
from pathlib import Path

import pandas as pd
import pytest

from recorded import analyze_measured

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "tests" / "data" / "h200_claims"
KERNELS = ROOT / "tests" / "data" / "diagnosis_families"
FAMILIES = ("diverge", "mio", "fp64", "fused", "strided")


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    """Each family's findings.csv, analyzed once per module."""
    out = {}
    for family in FAMILIES:
        folder = analyze_measured(
            DATA, family, KERNELS, tmp_path_factory.mktemp(family)
        )
        out[family] = pd.read_csv(folder / "findings.csv")
    return out


def primary(found, section, variant):
    rows = found[
        (found["role"] == "primary")
        & (found["section"] == section)
        & (found["variant"] == variant)
    ]
    assert len(rows) == 1, rows
    return rows.iloc[0]


def test_lanes_idle_in_an_issue_bound_kernel_are_its_cause_with_the_branch(findings):
    found = findings["diverge"]
    base = primary(found, "baseline", "v0_lane_split")
    assert base["rule"] == "idle_lanes" and base["line"] == 10
    assert "`if (threadIdx.x & 1) {`" in base["message"]
    assert "make the branch uniform per warp" in base["message"]
    # the remedy of the issue time left is not "fewer address instructions"
    assert "fewer address and index instructions" not in " ".join(found["message"])
    step = primary(found, "step", "v1_warp_split")
    assert step["rule"] == "idle_lanes"  # 16.2 -> 32 lanes, the same thread work


def test_mio_waits_without_shared_memory_are_named_after_what_fills_the_queue(
    findings,
):
    found = findings["mio"]
    base = primary(found, "baseline", "v0_shuffle_each")
    assert base["rule"] == "mio_shuffle" and base["line"] == 6  # warp_sum.cuh
    assert "Shared-memory pipe" not in base["message"]
    assert primary(found, "step", "v1_shuffle_once")["rule"] == "instruction_count"
    step = primary(found, "step", "v2_round_trip")
    assert step["rule"] == "special_work" and step["line"] == 15
    moved = found[
        (found["variant"] == "v2_round_trip") & (found["rule"] == "pipe_moved")
    ]
    assert moved["message"].str.startswith("XU (special functions, conversions)").all()


def test_an_accidental_double_is_named_fp64_work_with_its_line(findings):
    found = findings["fp64"]
    for variant in ("v1_double_exp", "v2_fast_float"):  # added, then removed
        step = primary(found, "step", variant)
        assert step["rule"] == "fp64_work" and step["line"] == 10
        assert "`for (int k = 0; k < 8; ++k) v = exp(-0.5 * v * v)" in step["message"]
    slower = found[(found["variant"] == "v1_double_exp") & (found["section"] == "step")]
    assert "FP64 (double precision) warp instructions 0.0 M -> 75.5 M" in " ".join(
        slower["message"]
    )


def test_a_step_that_drops_a_launch_names_the_launch(findings):
    step = primary(findings["fused"], "step", "v1_one_kernel")
    assert step["rule"] == "launch_removed"
    assert step["share_of_change"] == pytest.approx(1.0, abs=0.1)
    assert "`fused_shift`" in step["message"]


def test_strided_loads_and_stores_are_named_together(findings):
    found = findings["strided"]
    base = primary(found, "baseline", "v0_row_per_thread")
    assert base["rule"] == "uncoalesced_access" and base["line"] == 8
    assert "Loads:" in base["message"] and "Stores:" in base["message"]
    assert primary(found, "step", "v1_element_per_thread")["rule"] == (
        "uncoalesced_access"
    )
    # 2,048 blocks on 132 SMs: no SM is without a block
    assert not found["message"].str.contains("some SMs get no block").any()


def test_the_lean_profile_stays_within_two_passes_of_thirteen():
    passes = [
        r["passes"]
        for p in sorted(DATA.glob("profile/*/*/profile.json"))
        for r in json.loads(p.read_text())["reports"]
    ]
    assert len(passes) == 12 and set(passes) == {14}  # 13 without MIX_METRICS
