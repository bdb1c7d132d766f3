from pathlib import Path

import numpy as np
import pytest

from nsightflow.family.registry import load_family
from nsightflow.gpu.launch import poison
from nsightflow.gpu.timing import TimingSettings, sample_until_settled, summarize
from nsightflow.gpu.verify import compare, verify_sizes
from nsightflow.gpu.verify import summarize as verify_summary

KERNELS = Path(__file__).resolve().parents[3] / "kernels"


def test_compare_accepts_float32_rounding():
    ref = np.random.default_rng(0).uniform(-1, 1, (64, 64))
    result = compare(ref.astype(np.float32), ref, 1e-6)
    assert result["ok"] and result["rel_l2_error"] < 1e-7


def test_compare_flags_unwritten_poison():
    ref = np.ones((4, 4))
    out = ref.astype(np.float32)
    out[3, 2] = poison((1,), "float32")[0]
    result = compare(out, ref, 1e-6)
    assert not result["ok"]
    assert result["unwritten_or_nonfinite"] == 1
    assert result["first_mismatch"]["index"] == [3, 2]


def test_compare_flags_wrong_values():
    ref = np.linspace(1, 2, 100)
    result = compare((ref + 0.01).astype(np.float32), ref, 1e-6)
    assert not result["ok"] and result["rel_l2_error"] > 1e-3


def test_verify_summary_is_wrong_if_any_size_fails():
    sizes = [
        {
            "n": 7,
            "ok": True,
            "rel_l2_error": 1e-8,
            "unwritten_or_nonfinite": 0,
            "first_mismatch": None,
        },
        {
            "n": 9,
            "ok": False,
            "rel_l2_error": 0.5,
            "unwritten_or_nonfinite": 2,
            "first_mismatch": {"index": [1]},
        },
    ]
    assert verify_summary(sizes)["status"] == "wrong"
    assert "n=9" in verify_summary(sizes)["message"]
    assert verify_summary(sizes[:1])["status"] == "ok"


def test_summarize_matches_numpy():
    samples = [5.0, 1.0, 3.0, 2.0, 4.0]
    s = summarize(samples)
    assert s["time_median_us"] == 3.0
    assert s["time_iqr_us"] == pytest.approx(
        np.percentile(samples, 75) - np.percentile(samples, 25)
    )
    assert s["reps"] == 5 and s["time_min_us"] == 1.0


def test_sampling_stops_when_median_settles():
    calls = []

    def steady(k):
        calls.append(k)
        return [10.0] * k

    samples, settled = sample_until_settled(steady, TimingSettings(min_reps=30))
    assert settled and len(samples) >= 30 and len(calls) <= 4


def test_sampling_stops_at_max_reps_when_noisy():
    rng = np.random.default_rng(0)
    state = {"level": 1.0}

    def drifting(k):
        state["level"] *= 1.5  # the median never settles
        return list(state["level"] + rng.random(k))

    samples, settled = sample_until_settled(
        drifting, TimingSettings(min_reps=10, max_reps=200, budget_s=60)
    )
    assert not settled and len(samples) == 200


def test_concurrency_guard_policies(monkeypatch):
    from nsightflow.gpu import timing

    states = iter([{"other_processes": [4242]}, {"other_processes": []}])
    monkeypatch.setattr(timing, "gpu_state", lambda: next(states))
    monkeypatch.setattr(timing.time, "sleep", lambda s: None)
    assert timing.wait_until_alone(TimingSettings(guard="wait")) == (True, [])

    busy = {"other_processes": [4242]}
    monkeypatch.setattr(timing, "gpu_state", lambda: busy)
    assert timing.wait_until_alone(TimingSettings(guard="refuse")) == (False, [4242])
    assert timing.wait_until_alone(TimingSettings(guard="flag")) == (True, [4242])
    assert timing.wait_until_alone(TimingSettings(guard="wait", guard_wait_s=0)) == (
        False,
        [4242],
    )


def test_verify_covers_every_accepted_sweep_size_and_the_odd_ones():
    """A variant is checked at each size it is timed at, plus odd sizes."""
    fam = load_family(KERNELS / "sgemm")
    naive = verify_sizes(fam, fam.variants["v0_naive"])
    blocked = verify_sizes(fam, fam.variants["v5_regblock2d"])
    assert set(fam.sizes) <= set(naive)
    assert {257, 1000} <= set(naive)
    assert all(n % 128 == 0 for n in blocked)
    assert set(blocked) == {n for n in set(naive) | {384} if n % 128 == 0}
    assert 384 in blocked and 384 & (
        384 - 1
    )  # a multiple of the tile, not a power of 2
