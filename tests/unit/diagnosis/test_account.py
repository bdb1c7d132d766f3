"""Each step's account on the bundled H200 recording: parts that add up to the timed
change, residuals named, causes with their own metric, one noise line, and what limits
each variant now beside what its step changed.

The property tests run over every step of every bundled family; the numbers of the
named cases are read from analysis.csv here, not from the code under test.
"""

import json
import math
import re

import pandas as pd
import pytest

from recorded import FAMILIES
from recorded import analyze as _analyze

CONFLICT_SHARE = 0.2  # replays / shared wavefronts from which conflicts are a cause


@pytest.fixture(scope="module")
def analysed(recording, tmp_path_factory):
    """parse -> analyze of every bundled family, once per module."""
    return {f: _analyze(recording, f, tmp_path_factory.mktemp(f)) for f in FAMILIES}


def _findings(folder):
    return pd.read_csv(folder / "findings.csv", keep_default_na=False, na_values=[""])


def _analysis(folder):
    return pd.read_csv(folder / "analysis.csv").set_index(["variant", "size"])


def _steps(found):
    return found[(found["section"] == "step")].groupby(["variant", "size"])


@pytest.mark.parametrize("family", FAMILIES)
def test_every_step_s_parts_sum_to_its_timed_change(analysed, family):
    found = _findings(analysed[family])
    a = _analysis(analysed[family])
    for (variant, size), group in _steps(found):
        parts = group[group["share_of_change"].notna()]
        if parts.empty:
            continue
        # findings.csv keeps 10 significant digits (5e-10 of each share): parts of
        # +16.2 and -6.7 of a small net change (sgemm v5 at 1024) sum to 1 within
        # that rounding of their magnitudes, not within 1e-9
        rounding = 1e-9 * max(1.0, parts["share_of_change"].abs().sum())
        assert parts["share_of_change"].sum() == pytest.approx(1.0, abs=rounding), (
            variant,
            size,
        )
        timing = parts[parts["rule"] == "timing_residual"]
        if timing.empty:  # no change to share: its one record says so
            assert len(parts) == 1 and parts["share_of_change"].iloc[0] == 1.0
            continue
        # the residual's before / after are ncu's and the timing's change, in us
        step_of = str(group["step_of"].iloc[0])
        before, after = a.loc[(step_of, size)], a.loc[(variant, size)]
        dn = after["ncu_time_us"] - before["ncu_time_us"]
        de = after["time_median_us"] - before["time_median_us"]
        (r,) = timing.itertuples()
        assert (r.before, r.after) == pytest.approx((dn, de), rel=1e-9)
        assert r.share_of_change == pytest.approx((de - dn) / de, rel=1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_no_sentence_says_what_a_factor_does_alone(analysed, family):
    found = _findings(analysed[family])
    step = found[found["section"] == "step"]
    assert not step["message"].str.contains("alone this changes").any()
    assert not step["message"].str.contains(r"alone [+-]\d").any()


def _pct(text, pattern):
    hit = re.search(pattern, text)
    return tuple(float(x) for x in hit.groups()) if hit else None


@pytest.mark.parametrize("family", FAMILIES)
def test_no_printed_threshold_contradicts_its_number(analysed, family):
    found = _findings(analysed[family])
    for r in found[found["rule"] == "step_unchanged"].itertuples():
        moved, line = _pct(r.message, r"moved ([+-][\d.]+)%, within the ([\d.]+)%")
        assert abs(moved) <= line, r.message
    for r in found[found["rule"] == "step_not_in_counters"].itertuples():
        timed, ncu = _pct(
            r.message, r"timing moved ([+-][\d.]+)% .* moved ([+-][\d.]+)%"
        )
        # the timing saw a change ncu's launch does not show its way by 2% or more
        assert abs(timed) >= 2.0 and (abs(ncu) < 2.0 or timed * ncu < 0), r.message


@pytest.mark.parametrize("family", FAMILIES)
def test_no_cause_without_its_own_metric(analysed, family):
    found = _findings(analysed[family])
    a = _analysis(analysed[family])
    causes = found[
        (found["section"] == "step") & found["role"].isin(["primary", "secondary"])
    ]
    for r in causes.itertuples():
        assert r.metric, (r.variant, r.rule)
        if r.rule == "bank_conflicts":  # replays on the side where they were a cause
            sides = [
                a.loc[(v, r.size), "smem_conflict_share"]
                for v in (r.step_of, r.variant)
            ]
            assert max(sides) >= CONFLICT_SHARE, (r.variant, sides)
            assert "mio_throttle" in r.metric or "short_scoreboard" in r.metric


@pytest.mark.parametrize("family", FAMILIES)
def test_every_variant_has_what_limits_it_beside_its_stand(analysed, family):
    found = _findings(analysed[family])
    stand = found[found["section"] == "stand"]
    for (variant, size), group in stand.groupby(["variant", "size"]):
        limits = group[group["rule"].str.startswith("limit_")]
        assert len(limits) == 1, (variant, size, list(group["rule"]))


def test_sgemm_occupancy_takes_the_issue_waits_it_caused(analysed):
    found = _findings(analysed["sgemm"])
    a = _analysis(analysed["sgemm"])
    # v4 -> v5 at 4096: achieved occupancy 98.5% -> 23.9% (32 -> 128 registers a
    # thread); not_selected fell with it, so no issue part stands beside occupancy
    assert a.loc[("v4_regblock1d", 4096), "achieved_occupancy_pct"] > 95
    assert a.loc[("v5_regblock2d", 4096), "achieved_occupancy_pct"] < 25
    v5 = found[(found["variant"] == "v5_regblock2d") & (found["size"] == 4096)
               & (found["section"] == "step")]  # fmt: skip
    rules = dict(zip(v5["rule"], v5["share_of_change"], strict=True))
    assert "issue" not in rules and "issue_bound" not in rules
    assert rules["occupancy"] < 0  # it cost time: a negative share of a saving
    (occupancy,) = v5[v5["rule"] == "occupancy"].itertuples()
    # the saving in all is the timed medians' difference, 8,251.7 - 3,740.7 us
    saved = (
        a.loc[("v4_regblock1d", 4096), "time_median_us"]
        - a.loc[("v5_regblock2d", 4096), "time_median_us"]
    )
    assert saved == pytest.approx(4511, abs=0.5)
    assert f"us added, against the {saved:,.0f} us saved in all" in occupancy.message


def _ran(recording, variant):
    """The parameters a variant ran with, from the recording's time JSON."""
    path = recording / "time" / "sgemm" / f"{variant}.json"
    return json.loads(path.read_text())["params"]


def test_sgemm_v7_says_its_configuration_changed_with_its_code(analysed, recording):
    found = _findings(analysed["sgemm"])
    (ran,) = found[(found["variant"] == "v7_double_buffer") & (found["size"] == 4096)
                   & (found["rule"] == "step_params_changed")].itertuples()  # fmt: skip
    before, after = (
        _ran(recording, "v6_vectorized"),
        _ran(recording, "v7_double_buffer"),
    )
    changed = [k for k in before if k in after and before[k] != after[k]]
    assert changed == ["BM", "BN", "BK", "TM"]  # 128x128x16, TM 8 -> 64x256x8, TM 16
    for k in changed:
        assert f"{k} {before[k]} -> {after[k]}" in ran.message
    # v6 ran v5's configuration (BM128_BN128_BK16_TM8_TN8 both) and its idea names
    # no parameter: no configuration change to flag
    assert _ran(recording, "v5_regblock2d") == _ran(recording, "v6_vectorized")
    v6 = found[(found["variant"] == "v6_vectorized") & (found["section"] == "step")]
    assert not v6["rule"].isin(["step_params_changed", "step_params_text"]).any()


def test_sgemm_v2_is_judged_as_the_regression_it_declares(analysed):
    found = _findings(analysed["sgemm"])
    (r,) = found[(found["variant"] == "v2_tiled_transposed") & (found["size"] == 4096)
                 & (found["rule"] == "expected_observed")].itertuples()  # fmt: skip
    assert "*Meant to show*" in r.message and "As meant: slower through" in r.message


def test_sgemm_limits_and_causes_are_two_things(analysed):
    found = _findings(analysed["sgemm"])
    a = _analysis(analysed["sgemm"])
    stand = found[(found["section"] == "stand") & (found["size"] == 4096)]
    limit = dict(zip(stand["variant"], stand["rule"], strict=False))
    limits = stand[stand["rule"].str.startswith("limit_")]
    by = dict(zip(limits["variant"], limits["rule"], strict=True))
    # v7: issue slots 82% busy, its closest unit; v1: L1/shared 84%
    assert by["v7_double_buffer"] == "limit_issue"
    assert a.loc[("v7_double_buffer", 4096), "issue_pct"] > 80
    assert by["v1_tiled32"] == "limit_l1"
    # cuBLAS behind torch.matmul, profiled now: issue slots 89.6% busy
    assert by["v8_torch_matmul"] == "limit_issue"
    assert a.loc[("v8_torch_matmul", 4096), "issue_pct"] > 85
    assert limit  # the stands are there beside them


def test_reduction_v2_s_timing_residual_is_the_profile_s_difference(analysed):
    found = _findings(analysed["reduction"])
    a = _analysis(analysed["reduction"])
    n = 16777216
    e0, e1 = (a.loc[(v, n), "time_median_us"] for v in ("v1_sequential", "v2_shuffle"))
    t0, t1 = (a.loc[(v, n), "ncu_time_us"] for v in ("v1_sequential", "v2_shuffle"))
    # by hand from the recording: the timing saved 53.184 - 23.648 = 29.536 us,
    # ncu's launches 54.080 - 22.816 = 31.264; the 1.728 us between is a cost
    assert (e1 - e0, t1 - t0) == pytest.approx((-29.536, -31.264), abs=0.001)
    (r,) = found[(found["variant"] == "v2_shuffle")
                 & (found["rule"] == "timing_residual")
                 & (found["size"] == n)].itertuples()  # fmt: skip
    assert "1.73 of the 29.5 us" not in r.message  # it cost, against the saving
    assert "1.73 us added, against the 29.5 us saved in all" in r.message


def test_a_no_change_step_has_one_record_and_no_parts(analysed):
    for family in FAMILIES:
        found = _findings(analysed[family])
        for r in found[
            found["rule"].isin(["step_unchanged", "step_not_in_counters"])
        ].itertuples():
            group = found[(found["section"] == "step") & (found["variant"] == r.variant)
                          & (found["size"] == r.size)]  # fmt: skip
            assert group["share_of_change"].notna().sum() == 1, (family, r.variant)
            assert math.isclose(r.share_of_change, 1.0)
            assert not json.loads(r.params).get("part")


@pytest.mark.parametrize("family", FAMILIES)
def test_no_part_reads_as_larger_than_the_change_it_is_part_of(analysed, family):
    """A part "13,406 of the 6,808 us saved" reads as a typo: it says "offset"."""
    for message in _findings(analysed[family])["message"].dropna():
        for x, y in re.findall(r"([\d,.]+) of the ([\d,.]+) us", message):
            assert float(x.replace(",", "")) <= float(y.replace(",", "")), message


def test_a_part_larger_than_the_net_change_says_the_others_offset_it():
    from nsightflow.diagnosis.account import part_msg
    from nsightflow.diagnosis.record import render

    text = render("", part_msg(-13406.0, -6808.0))
    assert text == "13,406 us saved, offset by the other parts to 6,808 us saved in all"
    assert render("", part_msg(-3.1, -9.8)) == "3.10 of the 9.80 us saved"
