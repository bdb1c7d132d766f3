"""Markers that skip visibly where the GPU, ncu or SLURM is missing; shared fixtures."""

import itertools
import json
import shutil
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from cli_run import copy_workflow, replay_in
from nsightflow.machine.recording import gpu_available
from once import built_once
from recorded import RECORDING

ROOT = Path(__file__).resolve().parents[1]
ON_GPU = ROOT / "tests" / "data" / "h200_gpu_reports"
# summary.csv columns that are shares of a ceiling (the rest comes from the raw files)
CEILING_SHARES = {"pct_of_copy_bw": "copy_gbps", "pct_of_fp32_peak": "fp32_gflops"}


# Folders whose modules run Snakemake or a browser: minutes each, started first.
END_TO_END = ("workflow", "browser", "slurm")
# The modules that build the session's replay of every family (the longest setup).
SHARED_REPLAY = "every_family_replay"


# Seconds each module took in the last run (pytest's cache, .pytest_cache): within a
# rank the longest start first. A clean checkout has none: collection order.
MODULE_SECONDS = "nsightflow/module_seconds"
_spent: dict[str, float] = {}  # this run's, summed from the test reports


def _longest_first(items: list[pytest.Item], seconds: Mapping[str, float]) -> None:
    """Order the modules for pytest-xdist (pyproject addopts: `--dist loadfile`).

    xdist hands the modules to its workers in collection order
    (`--no-loadscope-reorder`): first one module that reads the replay of every
    family (it builds it, ~200 s of CPU), then the end-to-end folders, then the
    other readers of that replay (made by then), then the unit tests, so that the
    short unit modules fill both workers at the end instead of one worker finishing a
    replay alone. Within a rank the modules that took longest in the last run
    (``seconds``, by module path) come first, so that no long module is handed out
    last while the other worker has nothing left; a stable sort, so modules the last
    run did not time keep their order, after the others.
    """
    reads: dict[Path, bool] = {}
    for item in items:
        uses = SHARED_REPLAY in getattr(item, "fixturenames", ())
        reads[Path(item.path)] = reads.get(Path(item.path), False) or uses
    builder = next((path for path, used in reads.items() if used), None)
    rank = {path: _rank(path, used, path == builder) for path, used in reads.items()}
    items.sort(
        key=lambda item: (
            rank[Path(item.path)],
            -seconds.get(item.nodeid.split("::", 1)[0], 0.0),
        )
    )


def _rank(path: Path, reads_replay: bool, builds_replay: bool) -> int:
    """A module's place in the run (:func:`_longest_first`): lower starts earlier."""
    if builds_replay:
        return 0
    if path.relative_to(ROOT / "tests").parts[0] in END_TO_END and not reads_replay:
        return 1
    return 2 if reads_replay else 3


@pytest.hookimpl(tryfirst=True)  # sorted before the other plugins see the items
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    cache = getattr(config, "cache", None)
    _longest_first(items, cache.get(MODULE_SECONDS, {}) if cache else {})
    gpu_ok, gpu_why = gpu_available()
    reasons = {
        "gpu": None if gpu_ok else f"no usable GPU: {gpu_why}",
        "ncu": None if shutil.which("ncu") and gpu_ok else "ncu or GPU missing",
        "slurm": None if shutil.which("sinfo") else "no SLURM (sinfo not on PATH)",
    }
    for item in items:
        # marked, or in the top-level folder of that name (tests/gpu, tests/slurm);
        # not item.keywords, which also holds tests/unit/gpu, the gpu package's tests
        top = Path(item.path).relative_to(ROOT / "tests").parts[0]
        for marker, reason in reasons.items():
            if reason and (item.get_closest_marker(marker) or top == marker):
                item.add_marker(pytest.mark.skip(reason=reason))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    module = report.nodeid.split("::", 1)[0]
    _spent[module] = _spent.get(module, 0.0) + report.duration


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The run's seconds per module into the cache, for the next run's order."""
    config = session.config
    cache = getattr(config, "cache", None)
    # xdist's workers send their reports to the controller, which writes for them
    if cache is None or hasattr(config, "workerinput") or not _spent:
        return
    seconds = {**cache.get(MODULE_SECONDS, {}), **_spent}
    cache.set(MODULE_SECONDS, {m: round(t, 1) for m, t in sorted(seconds.items())})


@pytest.fixture(scope="session")
def recording() -> Path:
    """The bundled H200 recording; a missing recording fails, never skips."""
    assert (RECORDING / "recording.json").is_file(), f"{RECORDING} is missing"
    return RECORDING


@pytest.fixture(scope="session")
def every_family_replay(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding a replay of every bundled family, English then Chinese.

    The README's command (`snakemake --cores 2`, PDFs included) in a copy of the
    workflow, kernels and recording, run once per session and read by every test
    that needs the whole replay (tests/workflow/test_report_budgets.py,
    tests/workflow/test_pinned_replay.py): ~100 s of CPU per language; once per
    test run, shared by pytest-xdist's workers (:func:`built_once`).
    """

    def replay(work: Path) -> None:
        for lang in ("en", "zh"):
            replay_in(work, "--config", f'report={{"language": "{lang}"}}')

    return built_once(tmp_path_factory, SHARED_REPLAY, replay)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    """A copy of the workflow, kernels and recording: runs never touch the checkout."""
    return copy_workflow(tmp_path)


def _assert_same_as_on_gpu(replayed: Path, family: str) -> None:
    """A replayed summary.csv against the one the H200 wrote for ``family``.

    Every column computed from the raw files is identical to the byte. The shares of
    a ceiling follow the ceilings: the H200 run used ``ceilings.json`` stored beside its
    summary, replay uses the recording's, so those columns scale by the ratio. Columns
    added since the H200 wrote its summary (the regime) come after its own.
    A variant on another input (``input`` not empty) is compared with
    that input's baseline, not the family's: for those rows the speedup is checked
    against the event medians of their own input instead, and the step onto that
    input has no speedup over its predecessor.
    """
    ours = pd.read_csv(replayed, dtype=str, keep_default_na=False)
    gpu = pd.read_csv(ON_GPU / family / "summary.csv", dtype=str, keep_default_na=False)
    # variants added to the family after that run (the Python launchers, recorded
    # later) are not in the H200's summary: the rest must still match it
    ours = ours[ours["variant"].isin(set(gpu["variant"]))].reset_index(drop=True)
    assert list(ours.columns)[: len(gpu.columns)] == list(gpu.columns), family
    # summary.csv's regime and the ceiling it names are the analysis's reading of the
    # row's rate against the roofline (the FP32 rate or the bytes against a measured
    # bandwidth, or its named limiter: docs/outputs.md); the H200 wrote its summary
    # under an older rule, so both are derived columns here, checked by
    # tests/unit/diagnosis/test_evidence.py
    # Variants timed again after the H200 wrote its summary (the sweeps run of session
    # 4 re-measured those whose source took parameters): checked against their own raw
    # time files instead, and left out of the comparison with the H200's summary.
    later = _timed_later(family)
    _check_retimed(ours, family, later)
    keep = ~ours["variant"].isin(later) & ~ours["variant"].isin(_followers(ours, later))
    ours, gpu = ours[keep].reset_index(drop=True), gpu[keep].reset_index(drop=True)
    own = ours["input"] == "" if "input" in ours else pd.Series(True, ours.index)
    raw = [c for c in gpu.columns if c not in CEILING_SHARES and c not in DERIVED]
    same = [c for c in raw if c not in PER_INPUT]
    fixed = ours["variant"].isin(PLACED_AGAIN.get(family, ()))
    counted = [c for c in same if c in FROM_COUNTERS]
    pd.testing.assert_frame_equal(
        ours.loc[fixed, [c for c in same if c not in counted]],
        gpu.loc[fixed, [c for c in same if c not in counted]],
        obj=f"{family} summary.csv, re-placed profiles",
    )
    pd.testing.assert_frame_equal(
        ours.loc[~fixed, same], gpu.loc[~fixed, same], obj=f"{family} summary.csv"
    )
    pd.testing.assert_frame_equal(
        ours.loc[own, PER_INPUT], gpu.loc[own, PER_INPUT], obj=f"{family} per input"
    )
    _ranked_within_input(ours[~own])
    # a step onto another input has no speedup over its predecessor (the first variant
    # of that input); the steps within it keep the H200's
    other = ~own
    kept = ours.loc[other, "speedup_vs_previous"]
    assert ((kept == "") | (kept == gpu.loc[other, "speedup_vs_previous"])).all()
    used = json.loads((ON_GPU / family / "ceilings.json").read_text())
    recorded = json.loads((RECORDING / "ceilings.json").read_text())
    for column, ceiling in CEILING_SHARES.items():
        filled = gpu[column] != ""
        assert (filled == (ours[column] != "")).all(), (family, column)
        ratio = ours[column][filled].astype(float) / gpu[column][filled].astype(float)
        expected = used[ceiling] / recorded[ceiling]
        assert np.allclose(ratio, expected, rtol=1e-9), (family, column)
    if REGIME_SHARE in gpu:
        _check_regime_share(gpu, used, family)  # the H200's, through its ceilings
        _check_regime_share(ours, recorded, family, replayed=True)


# The share of the row's regime ceiling (regime_ceiling names it) follows the ceilings
# too; worked out here from the row's own GB/s and GFLOP/s (ideal work over time).
REGIME_SHARE = "regime_ceiling_pct"
DERIVED = (REGIME_SHARE, "regime", "regime_ceiling")
_OF_CEILING = {"copy_bw": ("gbps", "copy_gbps"), "fp32_peak": ("gflops", "fp32_gflops")}
_OF_CEILING["vendor_sgemm"] = ("gflops", "vendor_sgemm_gflops")


VENDOR_RUNG = "v8_torch_matmul"  # SGEMM's cuBLAS variant (torch.matmul)


def _check_regime_share(
    rows: pd.DataFrame, ceilings: dict, family: str, replayed: bool = False
) -> None:
    """Each regime_ceiling_pct is 100 x the row's rate over its ceiling; a roofline
    (latency) row's the larger of its memory and FP32 shares."""
    for row in rows[rows[REGIME_SHARE] != ""].itertuples():
        if row.regime_ceiling == "roofline":
            shares = [
                100 * float(getattr(row, rate) or 0) / ceilings[ceiling]
                for rate, ceiling in (_OF_CEILING["copy_bw"], _OF_CEILING["fp32_peak"])
            ]
            expected = max(shares)
        else:
            rate, ceiling = _OF_CEILING[row.regime_ceiling]
            of = ceilings[ceiling]
            if replayed and row.regime_ceiling == "vendor_sgemm":
                # the ladder's cuBLAS rung is the ceiling at each size it was timed
                # at; the H200 wrote its summary with ceilings.json's n = 8192 rate
                rung = rows[
                    (rows["variant"] == VENDOR_RUNG) & (rows["size"] == row.size)
                ]
                of = (
                    float(rung[rate].iloc[0])
                    if len(rung) and rung[rate].iloc[0]
                    else of
                )
            expected = 100 * float(getattr(row, rate)) / of
        assert np.isclose(float(row.regime_ceiling_pct), expected, rtol=1e-6), (
            family,
            "replayed" if replayed else "the H200's",
            row,
        )


PER_INPUT = ["speedup_vs_baseline", "speedup_vs_previous"]
# Variants whose summary columns from the counters are the replay's own, not the
# H200's (none since spmv was measured again after the profile stage's fix).
PLACED_AGAIN: dict[str, tuple[str, ...]] = {}
FROM_COUNTERS = ("regime", "regime_ceiling")


def _timed_later(family: str) -> set[str]:
    """Variants whose time file a later addition to the recording replaced.

    "Later": recorded more than half a day after the run that wrote the H200's own
    summary (its ceilings.json, measured at that run's start).
    """
    written = json.loads((ON_GPU / family / "ceilings.json").read_text())
    since = pd.Timestamp(written["provenance"]["date"]) + pd.Timedelta(hours=12)
    info = json.loads((RECORDING / "recording.json").read_text())
    later = set()
    for addition in info.get("additions", []):
        if addition.get("date") and pd.Timestamp(addition["date"]) > since:
            prefix = f"time/{family}/"
            later |= {
                Path(f).stem
                for f in addition.get("replaced", [])
                if f.startswith(prefix)
            }
    return later


def _followers(ours: pd.DataFrame, later: set[str]) -> set[str]:
    """Variants right after a re-timed one: their speedup over it changed too."""
    variants = list(dict.fromkeys(ours["variant"]))
    return {b for a, b in itertools.pairwise(variants) if a in later}


def _check_retimed(ours: pd.DataFrame, family: str, later: set[str]) -> None:
    """Re-timed rows: each median is the raw file's, and the derived columns follow."""
    for variant in later:
        raw = json.loads((RECORDING / "time" / family / f"{variant}.json").read_text())
        medians = {int(r["size"]): r["time_median_us"] for r in raw["rows"]}
        rows = ours[ours["variant"] == variant]
        assert len(rows), (family, variant)
        for row in rows.itertuples():
            assert np.isclose(float(row.time_median_us), medians[int(row.size)]), row
    ok = ours[(ours["status"] == "ok") & (ours["gbps"] != "")]
    inputs = ["input", "size"] if "input" in ok else ["size"]
    for _, group in ok.groupby(inputs):
        # the same ideal bytes at a size: GB/s x time is one number for every variant
        moved = group["gbps"].astype(float) * group["time_median_us"].astype(float)
        assert np.allclose(moved, moved.iloc[0], rtol=1e-6), (family, group)


def _ranked_within_input(rows: pd.DataFrame) -> None:
    """Speedups against the baseline of each row's own input."""
    ok = rows[rows["status"] == "ok"].copy()
    ok["t"] = ok["time_median_us"].astype(float)
    for (_, _), group in ok.groupby(["input", "size"]):
        # speedup x time is the input's baseline time: the same on every row, and
        # one row (the baseline) has speedup 1
        speedups = group["speedup_vs_baseline"].astype(float)
        base = speedups * group["t"]
        assert np.allclose(base, base.iloc[0], rtol=1e-9), group
        assert np.isclose(speedups, 1.0).any(), group


@pytest.fixture
def same_as_on_gpu():
    """Checks a replayed summary.csv against the H200's own (see the function)."""
    return _assert_same_as_on_gpu
