"""A step's parts named as causes only with their own metric moving, on the bundled
H200 recording: stall ratios beyond their printing, no dispatch stalls, bank conflicts
and local memory by their own counters, the pooled rest still adding up, expectations
from the idea alone and none of a library variant.

The property tests run over every step of every bundled family; the numbers of the
named cases are read from analysis.csv and stalls.csv here, not from the code under
test.
"""

import functools
import json
import math

import pandas as pd
import pytest

from recorded import FAMILIES
from recorded import analyze as _analyze

NAMED = ("primary", "secondary")
PRINT_STEP = 0.1  # cycles: the body prints a stall ratio with one decimal


@pytest.fixture(scope="module")
def analysed(recording, tmp_path_factory):
    """Each bundled family parsed and analyzed (findings included), once."""
    folders = {}
    for family in FAMILIES:
        folders[family] = _analyze(recording, family, tmp_path_factory.mktemp(family))
    return folders


def _findings(folder):
    """findings.csv with its empty cells as NaN (an empty step_of stays '')."""
    read = functools.partial(pd.read_csv, keep_default_na=False, na_values=[""])
    return read(folder / "findings.csv")


def _named(found):
    step = found[found["section"] == "step"]
    return step[step["role"].isin(NAMED)]


def _one_decimal(x):
    return round(x, 1) if abs(x) < 1000 else round(x)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_named_cause_is_a_stall_ratio_within_its_printing(analysed, family):
    # SGEMM v7 -> v8_torch_matmul at n = 4096 credited "MIO 0.2 -> 0.2" with 51.4 us
    # and six more stall ratios within 0.1 cycle per instruction with 71-145 us
    for r in _named(_findings(analysed[family])).itertuples():
        if "stalled_" not in str(r.metric) or not math.isfinite(r.before):
            continue
        x, y = float(r.before), float(r.after)
        printed = abs(_one_decimal(y) - _one_decimal(x))
        assert printed > PRINT_STEP + 1e-9, (r.variant, r.size, r.rule, x, y)
        assert abs(y - x) >= 0.1 * max(abs(x), abs(y)), (r.variant, r.size, r.rule)


@pytest.mark.parametrize("family", FAMILIES)
def test_dispatch_stalls_are_never_a_named_cause(analysed, family):
    # no counter says why a step cut them: SGEMM v6 read "dispatch stalls 1.0 -> 0.5
    # (354 of the 553 us saved)" beside the float4 loads it made
    named = _named(_findings(analysed[family]))
    assert "dispatch" not in set(named["rule"])
    for r in named.itertuples():
        if r.rule != "other_stalls":
            assert "dispatch_stall" not in str(r.metric), (r.variant, r.rule)


def test_sgemm_v6_names_its_conflicts_and_pools_its_dispatch_stalls(analysed):
    folder = analysed["sgemm"]
    a = pd.read_csv(folder / "analysis.csv").set_index(["variant", "size"])
    stalls = pd.read_csv(folder / "stalls.csv")
    at = stalls[(stalls["size"] == 4096) & (stalls["reason"] == "dispatch_stall")]
    x, y = (at[at["variant"] == v]["cycles"].iloc[0]
            for v in ("v5_regblock2d", "v6_vectorized"))  # fmt: skip
    assert y < 0.6 * x  # dispatch stalls halved: 1.19 -> 0.58 per instruction
    c0, c1 = (a.loc[(v, 4096), "smem_conflict_share"]
              for v in ("v5_regblock2d", "v6_vectorized"))  # fmt: skip
    assert c1 < 0.5 * c0  # conflict replays 38% -> 5% of shared wavefronts
    step = _named(_findings(folder))
    step = step[(step["variant"] == "v6_vectorized") & (step["size"] == 4096)]
    by_rule = step.set_index("rule")
    assert by_rule.loc["bank_conflicts", "role"] == "primary"
    pooled = json.loads(by_rule.loc["other_stalls", "params"])["pooled"]
    assert pooled["no_counter"] == ["dispatch"]
    assert "dispatch_stall" in by_rule.loc["other_stalls", "evidence"]
    # the two still add up with the rest: the step's shares sum to 1
    found = _findings(folder)
    parts = found[(found["section"] == "step") & (found["variant"] == "v6_vectorized")
                  & (found["size"] == 4096)]["share_of_change"].dropna()  # fmt: skip
    assert parts.sum() == pytest.approx(1.0, abs=1e-6)


def test_sgemm_v8_has_no_named_stall_within_a_tenth_of_a_cycle(analysed):
    folder = analysed["sgemm"]
    stalls = pd.read_csv(folder / "stalls.csv")
    at = stalls[stalls["size"] == 4096].set_index(["variant", "reason"])["cycles"]

    def moved(reason):
        v7 = at.get(("v7_double_buffer", reason), 0.0)
        return abs(at.get(("v8_torch_matmul", reason), 0.0) - v7)

    close = [r for r in stalls["reason"].unique() if moved(r) <= 0.15]
    assert "dispatch_stall" in close and "mio_throttle" in close
    step = _named(_findings(folder))
    step = step[(step["variant"] == "v8_torch_matmul") & (step["size"] == 4096)]
    for r in step.itertuples():
        reasons = [x.strip() for x in str(r.evidence).split(",") if x.strip()]
        if r.rule != "other_stalls" and reasons and "stalled_" in str(r.metric):
            assert not set(reasons) <= set(close), (r.rule, reasons)
    # nothing a named cause moved its way as much: the pooled part is the primary
    primary = step[step["role"] == "primary"]
    assert list(primary["rule"]) == ["other_stalls"]


@pytest.mark.parametrize("family", FAMILIES)
def test_a_mechanism_named_by_its_counter_has_that_counter_moving_its_way(
    analysed, family
):
    a = pd.read_csv(analysed[family] / "analysis.csv").set_index(["variant", "size"])
    counters = {
        "bank_conflicts": "smem_conflict_share",
        "local_memory": "local_sectors",
    }
    for r in _named(_findings(analysed[family])).itertuples():
        if r.rule not in counters or not math.isfinite(r.share_of_change):
            continue
        before, after = (a.loc[(v, r.size)] for v in (r.step_of, r.variant))
        de = after["time_median_us"] - before["time_median_us"]
        x, y = before[counters[r.rule]], after[counters[r.rule]]
        assert abs(y - x) >= 0.1 * max(abs(x), abs(y)), (r.variant, r.size, r.rule)
        assert (y - x) * r.share_of_change * de > 0, (r.variant, r.size, r.rule)


def test_sgemm_v5_s_local_memory_is_quoted_by_its_local_sectors(analysed):
    folder = analysed["sgemm"]
    a = pd.read_csv(folder / "analysis.csv").set_index(["variant", "size"])
    found = _named(_findings(folder))
    (r,) = found[(found["variant"] == "v5_regblock2d") & (found["size"] == 4096)
                 & (found["rule"] == "local_memory")].itertuples()  # fmt: skip
    assert "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum" in r.metric
    assert "long_scoreboard" not in r.metric
    ld = a.loc[("v4_regblock1d", 4096), ["local_ld_sectors", "local_st_sectors"]]
    assert r.before == pytest.approx(ld.sum())  # 134.7 M local sectors
    assert r.after == 0


def _expected(folder, variant, size=4096):
    found = _findings(folder)
    hit = found[(found["variant"] == variant) & (found["size"] == size)
                & (found["rule"] == "expected_observed")]  # fmt: skip
    assert len(hit) == 1, variant
    return hit.iloc[0]


def test_sgemm_v6_expects_only_what_its_idea_names(analysed):
    # v5's largest cause (dispatch stalls) is no expectation of float4 loads
    record = _expected(analysed["sgemm"], "v6_vectorized")
    expected = str(record["metric"]).partition(":")[2]
    assert "dispatch" not in expected
    assert "bank_conflicts" in expected  # "without bank conflicts"


def test_a_library_step_expects_nothing(analysed):
    record = _expected(analysed["sgemm"], "v8_torch_matmul")
    params = json.loads(record["params"])
    assert params.get("library") is True
    assert str(record["metric"]).partition(":")[2].strip() == ""
    assert "As expected" not in str(record["message"])
