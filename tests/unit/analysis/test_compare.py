# ruff: noqa: RUF001  (Chinese text uses full-width punctuation on purpose)
"""nsightflow compare: verdicts, intervals, causes, code diffs, exit status.

Runs are built from the bundled H200 recording: itself, copies with one variant slowed
by editing its files (quartiles, as recorded; or samples, as the time stage now keeps
them), a copy in which one kernel lost its padding, and a copy "on another GPU".
"""

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from nsightflow.analysis import compare as C
from nsightflow.analysis.runs import decode_samples, load_run
from nsightflow.cli import main
from nsightflow.family.registry import find_variant
from nsightflow.gpu.timing import encode_samples, source_record
from nsightflow.stages.compare import git_sources

ROOT = Path(__file__).resolve().parents[3]
TIMES = ("time_median_us", "time_q1_us", "time_q3_us", "time_min_us", "time_max_us")


def _copy(recording: Path, dst: Path, families=None, profile=False) -> Path:
    """The time stage's outputs of a recording (and its ceilings, profiles)."""
    dst.mkdir(parents=True, exist_ok=True)
    for name in ("recording.json", "ceilings.json"):
        shutil.copy2(recording / name, dst / name)
    stages = ["time", "profile"] if profile else ["time"]
    for stage in stages:
        for fam in families or [p.name for p in (recording / stage).iterdir()]:
            shutil.copytree(recording / stage / fam, dst / stage / fam)
    return dst


def _edit(run: Path, family: str, variant: str, change) -> None:
    path = run / "time" / family / f"{variant}.json"
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record, indent=2))


def _slow_quartiles(factor):
    """Every stored statistic slowed by ``factor``; kept samples too, where there are."""

    def change(record):
        for row in record["rows"]:
            for key in TIMES:
                if key in row:
                    row[key] *= factor
            row["time_iqr_us"] = row["time_q3_us"] - row["time_q1_us"]
        _scale_samples(factor)(record)

    return change


def _add_samples(seed):
    """Samples like the time stage keeps: reps values with the recorded median and
    about its IQR, in 32 ns event ticks."""

    def change(record):
        rng = np.random.default_rng(seed)
        for row in record.get("rows", []):
            if "time_median_us" not in row:
                continue
            sigma = row["time_iqr_us"] / 1.349
            z = rng.standard_normal(row["reps"])
            values = row["time_median_us"] + sigma * (z - np.median(z))
            ticks = np.maximum(1, np.round(values / 0.032)) * 0.032
            row["samples_ns"] = encode_samples(ticks.tolist())

    return change


def _scale_samples(factor):
    def change(record):
        for row in record["rows"]:
            if "samples_ns" in row:
                scaled = decode_samples(row["samples_ns"]) * factor
                row["samples_ns"] = encode_samples(scaled.tolist())

    return change


def _compare(a: Path, b: Path, out: Path, *extra: str) -> tuple[int, pd.DataFrame]:
    rc = main(["compare", str(a), str(b), "-o", str(out), *extra])
    return rc, pd.read_csv(out / "compare.csv")


# --- acceptance: the recording against itself, and slowed copies -----------------------


def test_the_recording_against_itself_is_all_same_and_exits_0(recording, tmp_path):
    out = tmp_path / "cmp"
    rc, pairs = _compare(recording, recording, out, "--fail-on", "changed")
    assert rc == 0
    assert len(pairs) > 150 and set(pairs["verdict"]) == {"SAME"}
    assert (pairs["ratio"] == 1.0).all()
    # the variants re-timed after the sweeps kept their samples, the rest quartiles
    assert set(pairs["basis"]) == {"quartiles", "samples"}
    counters = pd.read_csv(out / "compare_counters.csv")
    assert len(counters) > 0 and not counters["moved"].any()
    text = (out / "compare.md").read_text()
    assert "fell back on quartiles" in text and "Every pair is SAME" in text
    html = (out / "compare.html").read_text()
    assert "data:image/png;base64," in html  # the figure, embedded


SLOWED = (
    ("jacobi2d", "v2_coarsen2"),
    ("reduction", "v3_vec4"),  # the noisiest pairs above 20 us (IQR 5% at 22 us)
    ("spmv", "v7_hyb_skewed"),
)


@pytest.fixture(scope="module")
def slowed(recording, tmp_path_factory):
    """A copy of the recording with each of SLOWED's quartiles slowed by 10%, and its
    comparison with the recording (``--fail-on slower``): the copy, exit status and
    pairs. One comparison for the three cases: each pair's verdict is its own."""
    tmp = tmp_path_factory.mktemp("slowed")
    copy = _copy(recording, tmp / "slowed")
    for family, variant in SLOWED:
        _edit(copy, family, variant, _slow_quartiles(1.10))
    rc, pairs = _compare(recording, copy, tmp / "cmp", "--fail-on", "slower")
    return copy, rc, pairs


@pytest.mark.parametrize("family, variant", SLOWED)
def test_quartiles_slowed_10_percent_are_slower_above_20_us_and_nothing_else(
    recording, slowed, tmp_path, family, variant
):
    copy, rc, pairs = slowed
    assert rc == 1
    mine = (pairs["family"] == family) & (pairs["variant"] == variant)
    above = mine & (pairs["median_a_us"] > 20)
    assert above.sum() >= 1
    assert (pairs[above]["verdict"] == "SLOWER").all(), pairs[mine]
    edited = pd.Series(False, pairs.index)
    for fam, var in SLOWED:
        edited |= (pairs["family"] == fam) & (pairs["variant"] == var)
    assert (pairs[~edited]["verdict"] == "SAME").all()
    # the recorded samples are kept in whole ns: scaled and stored again, each
    # median moves by at most 0.5 ns off 1.10 x; compare.csv keeps 5 decimals
    slack = 1.10 * 0.5e-3 / pairs[mine]["median_a_us"] + 5e-6
    assert ((pairs[mine]["ratio"] - 1.10).abs() <= slack).all(), pairs[mine]
    assert main(["compare", str(recording), str(copy), "-o", str(tmp_path / "c2"),
                 "--no-counters", "--families", family]) == 0  # fmt: skip


def test_samples_slowed_10_percent_are_slower_from_the_samples(recording, tmp_path):
    families = ["jacobi2d", "vecadd"]
    a = _copy(recording, tmp_path / "a", families)
    for fam in families:
        for path in (a / "time" / fam).glob("*.json"):
            _edit(a, fam, path.stem, _add_samples(len(path.stem)))
    b = tmp_path / "b"
    shutil.copytree(a, b)
    _edit(b, "vecadd", "v1_grid_stride", _scale_samples(1.10))
    rc, pairs = _compare(a, b, tmp_path / "cmp", "--no-counters", "--fail-on", "slower")
    assert rc == 1 and set(pairs["basis"]) == {"samples"}
    mine = pairs["variant"] == "v1_grid_stride"
    above = mine & (pairs["median_a_us"] > 20)
    assert above.sum() == 3 and (pairs[above]["verdict"] == "SLOWER").all()
    assert (pairs[~mine]["verdict"] == "SAME").all()
    # the interval is about the ratio of medians: it holds the point estimate
    assert (
        (pairs["ci_low"] <= pairs["ratio"]) & (pairs["ratio"] <= pairs["ci_high"])
    ).all()
    assert set(pairs["caveats"].dropna()) == {"edited_b"}  # the medians were not
    assert pairs["caveats"].notna().sum() == 4  # edited with the samples: said so
    rc, same = _compare(a, a, tmp_path / "aa", "--no-counters", "--fail-on", "changed")
    assert rc == 0 and set(same["verdict"]) == {"SAME"}


# --- acceptance: a kernel's source changed -----------------------------------------------


def _with_sources(run: Path, family: str) -> None:
    for path in (run / "time" / family).glob("*.json"):
        _, var = find_variant(ROOT / "kernels", family, path.stem)
        _edit(
            run, family, path.stem, lambda r, v=var: r.update(source=source_record(v))
        )


def test_a_changed_kernel_is_named_with_its_diff_and_moved_counters(
    recording, tmp_path
):
    a = _copy(recording, tmp_path / "a", ["sgemm"], profile=True)
    _with_sources(a, "sgemm")
    b = tmp_path / "b"
    shutil.copytree(a, b)
    # v3_padded loses its padding: it becomes v2_tiled_transposed (32-way conflicts)
    v2 = json.loads((a / "time/sgemm/v2_tiled_transposed.json").read_text())

    def unpad(record):
        files = record["source"]["files"]
        files["sgemm/v3_padded.cu"] = files["sgemm/v3_padded.cu"].replace(
            "Bs[TILE][TILE + 1];", "Bs[TILE][TILE];"
        )
        record["rows"] = v2["rows"]

    _edit(b, "sgemm", "v3_padded", unpad)
    shutil.rmtree(b / "profile/sgemm/v3_padded")
    shutil.copytree(
        a / "profile/sgemm/v2_tiled_transposed", b / "profile/sgemm/v3_padded"
    )
    meta = b / "profile/sgemm/v3_padded/profile.json"
    meta.write_text(meta.read_text().replace('"v2_tiled_transposed"', '"v3_padded"'))

    out = tmp_path / "cmp"
    rc, pairs = _compare(a, b, out, "--fail-on", "slower")
    assert rc == 1
    mine = pairs["variant"] == "v3_padded"
    assert (pairs[mine & (pairs["median_a_us"] > 20)]["verdict"] == "SLOWER").all()
    assert (pairs[~mine]["verdict"] == "SAME").all()
    assert set(pairs[mine]["code"]) == {"changed"} and set(pairs[~mine]["code"]) == {
        "same"
    }
    text = (out / "compare.md").read_text()
    section = text.split("### `sgemm` `v3_padded`")[1].split("\n## ")[0]
    assert "-    __shared__ float Bs[TILE][TILE + 1];" in section
    assert "+    __shared__ float Bs[TILE][TILE];" in section
    # conflict replays 1% -> 84% of shared wavefronts, mio_throttle up
    counters = pd.read_csv(out / "compare_counters.csv")
    moved = counters[(counters["variant"] == "v3_padded") & counters["moved"]]
    at = moved[moved["size"] == 4096].set_index("counter")
    assert (
        at.loc["smem_conflict_pct", "a"] < 5 and at.loc["smem_conflict_pct", "b"] > 50
    )
    assert at.loc["stall_mio_throttle", "change"] > 5
    assert "`smem_conflict_pct`" in section and "`stall_mio_throttle`" in section
    # docs/compare.md quotes these counters of the case
    page = " ".join((ROOT / "docs" / "compare.md").read_text().split())
    conflicts, mio = at.loc["smem_conflict_pct"], at.loc["stall_mio_throttle"]
    assert (
        f"conflict replays {conflicts['a']:.1f}% -> {conflicts['b']:.0f}% of shared "
        f"wavefronts, `mio_throttle` {mio['a']:.0f}% -> {mio['b']:.0f}% of stall cycles"
    ) in page, (conflicts, mio)
    assert not counters[(counters["variant"] != "v3_padded")]["moved"].any()


# --- runs of different kinds and states ---------------------------------------------------


def test_another_gpu_shows_each_variant_against_its_own_ceilings(recording, tmp_path):
    b = _copy(recording, tmp_path / "b", ["jacobi2d"])
    for path in (b / "time/jacobi2d").glob("*.json"):
        _edit(b, "jacobi2d", path.stem, _slow_quartiles(1.5))
        _edit(
            b,
            "jacobi2d",
            path.stem,
            lambda r: r["provenance"].update(gpu="NVIDIA H100"),
        )
    ceilings = json.loads((recording / "ceilings.json").read_text())
    (b / "ceilings.json").write_text(
        json.dumps({**ceilings, "gpu": "NVIDIA H100", "copy_gbps": 3000.0})
    )
    out = tmp_path / "cmp"
    rc, pairs = _compare(recording, b, out, "--no-counters", "--families", "jacobi2d")
    assert rc == 0 and (pairs["verdict"] == "SLOWER").all()
    text = (out / "compare.md").read_text()
    assert "## Across GPUs" in text and "`NVIDIA H100`" in text
    row = next(
        r
        for r in json.loads((recording / "time/jacobi2d/v0_naive.json").read_text())[
            "rows"
        ]
        if r["size"] == 8192
    )
    gbps_a = 2 * 4 * 8192**2 / (row["time_median_us"] * 1e-6) / 1e9
    expected_a = 100 * gbps_a / ceilings["copy_gbps"]
    expected_b = 100 * (gbps_a / 1.5) / 3000.0
    shares = pairs.set_index(["variant", "size"]).loc[("v0_naive", 8192)]
    assert shares["ceiling"] == "copy"
    assert shares["pct_a"] == pytest.approx(expected_a, rel=1e-4)
    assert shares["pct_b"] == pytest.approx(expected_b, rel=1e-4)
    cells = [
        [c.strip() for c in ln.strip("|").split("|")]
        for ln in text.split("## Across GPUs")[1].split("\n## ")[0].splitlines()
        if ln.startswith("| `v0_naive`")
    ]
    assert cells == [["`v0_naive`", "16384", "1.50", "copy bandwidth", *cells[0][4:]]]


def test_a_variant_broken_in_b_is_a_status_change(recording, tmp_path):
    b = _copy(recording, tmp_path / "b", ["jacobi2d"])

    def broken(record):
        record.update(status="wrong", message="time skipped", skipped=True)
        record.pop("rows")

    _edit(b, "jacobi2d", "v1_smem", broken)
    out = tmp_path / "cmp"
    args = ["--no-counters", "--families", "jacobi2d", "--fail-on"]
    rc, pairs = _compare(recording, b, out, *args, "slower")
    assert rc == 1 and "v1_smem" not in set(pairs["variant"])
    text = (out / "compare.md").read_text()
    status = text.split("## Status changes")[1]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in status.splitlines()]
    assert ["`jacobi2d`", "`v1_smem`", "`ok`", "`wrong`"] in rows
    assert _compare(b, recording, tmp_path / "c2", *args, "slower")[0] == 0  # fixed
    assert _compare(b, recording, tmp_path / "c3", *args, "changed")[0] == 1


def test_a_history_entry_and_a_results_folder_are_runs(recording, tmp_path):
    entry = _copy(recording, tmp_path / "results/history/20261130T000000Z", ["scan"])
    (entry / "recording.json").unlink()
    results = _copy(recording, tmp_path / "results", ["scan"])
    (results / "recording.json").unlink()
    assert load_run(entry, counters=False).kind == "history"
    assert load_run(results, counters=False).kind == "results"
    assert load_run(recording, ["scan"], counters=False).kind == "recording"


def test_chinese_report(recording, tmp_path):
    out = tmp_path / "cmp"
    main(["compare", str(recording), str(recording), "-o", str(out), "--no-counters",
          "--families", "scan", "--language", "zh"])  # fmt: skip
    text = (out / "compare.md").read_text()
    assert text.startswith("# 两次运行对比：B 相对于 A")
    # every recorded scan time row keeps its samples: intervals from the samples
    rows = [
        row
        for path in sorted((recording / "time/scan").glob("*.json"))
        for row in json.loads(path.read_text())["rows"]
        if row.get("status") == "ok"
    ]
    assert rows and all("samples_ns" in row for row in rows)
    assert "所有置信区间都来自样本" in text and "退回使用四分位数" not in text
    assert '<html lang="zh-CN">' in (out / "compare.html").read_text()


def test_bad_input_is_one_line_naming_the_folder(tmp_path, capfd):
    (tmp_path / "empty").mkdir()
    assert main(["compare", str(tmp_path / "empty"), str(tmp_path / "empty")]) == 2
    err = capfd.readouterr().err
    assert err.startswith("ERROR: ") and "empty: no time/ folder" in err
    with pytest.raises(SystemExit) as exc:
        main(["compare", "a", "b", "--min", "2"])
    assert exc.value.code == 2
    assert "--min" in capfd.readouterr().err


def test_the_cli_help_states_the_default_floor_and_loads_no_pandas():
    from nsightflow.stages.compare import DEFAULT_MIN_HELP

    assert DEFAULT_MIN_HELP == f"{C.DEFAULT_MIN_CHANGE:.0%}"
    # `nsightflow parse` builds the same parser and must load ncu_report first
    code = "import sys; from nsightflow.cli import build_parser; build_parser(); "
    code += "print('pandas' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_families_not_timed_are_named(recording, tmp_path, capfd):
    rc = main(["compare", str(recording), str(recording), "-o", str(tmp_path),
               "--families", "nbody"])  # fmt: skip
    assert rc == 2 and "no timings of nbody" in capfd.readouterr().err


# --- the statistics ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "low, high, verdict",
    [
        (0.99, 1.01, "SAME"),
        (1 / 1.03, 1.03, "SAME"),  # the bounds themselves are inside
        (1.031, 1.06, "SLOWER"),
        (0.90, 0.97, "FASTER"),
        (1.02, 1.04, "UNCERTAIN"),
        (0.95, 1.05, "UNCERTAIN"),  # too wide to tell
    ],
)
def test_verdict_of_an_interval_against_3_percent(low, high, verdict):
    assert C.verdict(low, high, 0.03) == verdict


def test_bootstrap_median_of_two_values_takes_the_middle_like_numpy():
    # Resamples of [1, 2]: (1,1), (1,2), (2,1), (2,2): medians 1, 1.5, 1.5, 2.
    rng = np.random.default_rng(1)
    medians = C.bootstrap_medians(np.array([1.0, 2.0]), 40_000, rng)
    share = {v: float(np.mean(medians == v)) for v in (1.0, 1.5, 2.0)}
    assert share == pytest.approx({1.0: 0.25, 1.5: 0.5, 2.0: 0.25}, abs=0.01)


def test_bootstrap_medians_match_resampling_value_by_value():
    rng = np.random.default_rng(7)
    samples = np.round(rng.gamma(4.0, 2.0, 301), 1)
    ours = C.bootstrap_medians(samples, 20_000, np.random.default_rng(2))
    naive = np.median(rng.choice(samples, (20_000, samples.size)), axis=1)
    assert np.quantile(ours, [0.025, 0.5, 0.975]) == pytest.approx(
        np.quantile(naive, [0.025, 0.5, 0.975]), abs=0.11
    )


def test_quartile_interval_is_the_normal_theory_one():
    # Normal sample, sigma 1 (IQR 1.349), n = 100: se(median) = sqrt(pi/2) / 10.
    side = C.Side(median=100.0, q1=100 - 0.6745, q3=100 + 0.6745, reps=100)
    ratio, low, high, basis = C.ratio_interval(side, side, C.CompareSettings(), "x")
    se = math.sqrt(math.pi / 2) / 10 / 100
    half = 1.959964 * math.sqrt(2) * se
    assert basis == "quartiles" and ratio == 1.0
    assert low == pytest.approx(math.exp(-half), rel=1e-4)
    assert high == pytest.approx(math.exp(half), rel=1e-4)


def test_samples_win_over_stored_summaries():
    samples = np.array([10.0, 11.0, 12.0, 13.0, 14.0])
    row = {"time_median_us": 99.0, "time_q1_us": 98.0, "time_q3_us": 100.0, "reps": 5}
    side = C.Side.from_row({**row, "samples": samples})
    assert (side.median, side.q1, side.q3, side.reps) == (12.0, 11.0, 13.0, 5)
    assert C.Side.from_row({**row, "samples": None}).median == 99.0


def test_threshold_is_the_floor_or_the_pairs_own_noise(recording):
    timings = load_run(recording, ["reduction"], counters=False).timings
    pairs = C.pair_timings(timings, timings, C.CompareSettings(min_change=0.02))
    noisy = pairs.set_index(["variant", "size"]).loc[("v3_vec4", 16777216)]
    row = timings[(timings["variant"] == "v3_vec4") & (timings["size"] == 16777216)]
    iqr = (
        row["time_q3_us"] / row["time_median_us"]
        - row["time_q1_us"] / row["time_median_us"]
    )
    assert noisy["threshold_pct"] == pytest.approx(100 * float(iqr.iloc[0]))
    assert pairs["threshold_pct"].min() == pytest.approx(2.0)


# --- what the time stage keeps ------------------------------------------------------------


def test_samples_are_kept_as_whole_nanoseconds_in_order():
    text = encode_samples([15.456000342965126, 39.0079990029335, 1884.5279812812805])
    assert text == "15456 39008 1884528"
    assert decode_samples(text).tolist() == [15.456, 39.008, 1884.528]
    assert decode_samples(None) is None


def test_source_record_holds_the_manifest_entry_source_and_headers():
    _, variant = find_variant(ROOT / "kernels", "scan", "v3_smem_transpose")
    record = source_record(variant)
    assert sorted(record["files"]) == [
        "scan/family.yaml (variants.v3_smem_transpose)",
        "scan/reduce_then_scan.cuh",
        "scan/scan_common.cuh",
        "scan/v3_smem_transpose.cu",
    ]
    entry = record["files"]["scan/family.yaml (variants.v3_smem_transpose)"]
    assert "scan_v3_scan" in entry and "idea" not in entry
    assert (
        record["files"]["scan/v3_smem_transpose.cu"]
        == (ROOT / "kernels/scan/v3_smem_transpose.cu").read_text()
    )
    assert len(record["sha256"]) == len(record["family_sha256"]) == 64


def _have_commit(rev: str) -> bool:
    return (
        shutil.which("git") is not None
        and subprocess.run(
            ["git", "-C", str(ROOT), "cat-file", "-e", f"{rev}^{{commit}}"],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )


@pytest.mark.skipif(
    not (_have_commit("b4d985c2e4e8") and _have_commit("699d717e876b")),
    reason="commits not in this clone (shallow?)",
)
def test_git_gives_the_code_of_an_older_run_as_the_time_stage_keeps_it():
    lookup = git_sources(ROOT / "kernels")
    old = lookup("b4d985c2e4e8", "scan", "v3_smem_transpose")
    assert old is not None and old["origin"] == "git"
    assert set(old["files"]) == {
        "scan/family.yaml (variants.v3_smem_transpose)",
        "scan/v3_smem_transpose.cu",
        "scan/reduce_then_scan.cuh",
        "scan/scan_common.cuh",
    }
    # scan is unchanged since that commit: git gives what the time stage keeps now
    _, variant = find_variant(ROOT / "kernels", "scan", "v3_smem_transpose")
    assert old["files"] == source_record(variant)["files"]
    dirty = lookup("699d717e876b-dirty", "jacobi2d", "v0_naive")
    assert dirty is not None and dirty["origin"] == "git, dirty"
    assert lookup("0000000000aa", "scan", "v0_kogge_stone") is None
