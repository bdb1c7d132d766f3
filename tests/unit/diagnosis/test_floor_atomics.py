"""The floor of a family whose hot L2 slice's atomics grow with n (H200 recordings).

hotatomic's atomics run one after another on the slice that holds the sum; one per
block, so their time grows with the grid, cdiv(n, 256). The size-independent cost a
floor adds to the ideal time is what a launch takes beyond the longer of its ideal
time and those atomics' time, not beyond the ideal time alone: at n = 2^20 v2 took
11.3 us, about 7.2 us of which are its 4,096 atomics at the slice rate v0 measured.
Families whose atomics do not grow with n (histogram's and localarray's grids stop
at 1,056 blocks: their merges are work of a fixed size) keep the fixed cost read
against the ideal time alone.
"""

import json

import pandas as pd
import pytest

from recorded import KERNELS, RECORDING, ROOT, analyze, analyze_measured

DATA = ROOT / "tests" / "data" / "h200_advice"
ADVICE = ROOT / "tests" / "data" / "advice_families"


@pytest.fixture(scope="module")
def hot(tmp_path_factory):
    return analyze_measured(DATA, "hotatomic", ADVICE, tmp_path_factory.mktemp("hot"))


def _advice(folder):
    found = pd.read_csv(folder / "findings.csv")
    return found[found["rule"] == "advice"]


def test_hotatomic_fixed_cost_leaves_out_its_slice_atomics(hot):
    a = pd.read_csv(hot / "analysis.csv")
    at = a.set_index(["variant", "size"])
    v0 = at.loc[("v0_atomic_per_thread", 4194304)]
    rate = v0["l2_atomic_sectors_max"] / v0["ncu_time_us"]  # the slice's sectors/us
    v2 = at.loc[("v2_atomic_per_block", 4194304)]
    per_block = v2["l2_atomic_sectors_max"] / v2["grid_blocks"]
    small = at.loc[("v2_atomic_per_block", 1048576)]
    atomics = per_block * (1048576 // 256) / rate  # its 4,096 blocks' atomics, us
    assert atomics == pytest.approx(7.19, abs=0.01)
    bound = small["time_median_us"] - max(atomics, small["roof_time_us"])
    advice = _advice(hot)
    mine = advice[(advice["variant"] == "v2_atomic_per_block")]
    assert len(mine) == 1
    fixed = json.loads(mine["params"].iloc[0])["fixed"]
    assert 0 < fixed <= bound + 1e-9  # was 10.3 us: the atomics counted as fixed
    roof = v2["roof_time_us"]
    assert mine["after"].iloc[0] == pytest.approx(roof + fixed)  # the floor
    # "up to Nx" is the time over that floor, above the 2.35x the 10.3 us allowed
    gain = v2["time_median_us"] / (roof + bound)
    assert mine["expected_gain"].iloc[0] >= gain - 1e-9
    text = mine["message"].iloc[0]
    assert "busiest L2 slice's atomics need" in text and "grow with n" in text


def _least_beyond(a: pd.DataFrame, variant: str) -> float:
    """The least time beyond the ideal over the variant's input's correct launches."""
    inputs = (
        a["input"].astype(object).fillna("") if "input" in a else pd.Series("", a.index)
    )
    own = inputs[a["variant"] == variant].iloc[0]
    ok = a[(a["status"] == "ok") & (inputs == own) & a["roof_time_us"].notna()]
    ok = ok[ok["regime_ceiling"] != "vendor_sgemm"]
    return max(0.0, float((ok["time_median_us"] - ok["roof_time_us"]).min()))


# reduction's floors are on its one per-launch model (v4's marginal rate and
# intercept: test_advice_marginal.py), not on the least time beyond the copy rate
@pytest.mark.parametrize("family", ["histogram", "localarray"])
def test_fixed_cost_of_atomics_that_do_not_grow_with_n_is_unchanged(family, tmp_path):
    if family == "localarray":
        folder = analyze_measured(DATA, family, ADVICE, tmp_path)
    else:
        assert family in KERNELS
        folder = analyze(RECORDING, family, tmp_path)
    a = pd.read_csv(folder / "analysis.csv")
    advice = _advice(folder)
    assert not advice.empty
    for _, row in advice.iterrows():
        fixed = json.loads(row["params"])["fixed"]
        assert fixed == pytest.approx(_least_beyond(a, row["variant"]))


def test_a_launch_its_atomics_explain_within_the_noise_bounds_nothing():
    # a: 11.3 us, 7.2 us of growing slice atomics: 4.1 us beyond; b: 29,444 us,
    # 29,448 us of atomics at the rate, within its 2% noise: no bound (not 0)
    from nsightflow.diagnosis.floors import fixed_basis, launch_floors

    keys = ("variant", "size", "time_median_us", "roof_time_us", "slice_growth_us")
    launches = [
        ("a", 1, 11.3, 1.0, 7.2),
        ("b", 2, 29444.0, 15.8, 29448.0),
        ("c", 1, 20.0, 1.0, float("nan")),
    ]
    table = pd.DataFrame([dict(zip(keys, r, strict=True)) for r in launches])
    table["status"] = "ok"
    basis = fixed_basis(table)
    assert (basis.variant, basis.us) == ("a", pytest.approx(4.1))
    assert basis.atomics == pytest.approx(7.2)
    # a's 11.3 us at the smallest size is no launch floor: c's 20.0 us is
    assert launch_floors(table)[("", 1)] == (20.0, "c")
