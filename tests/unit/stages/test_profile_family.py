"""The profile stage's bookkeeping for a family in one ncu process.

A stand-in ncu (a shell script) takes the place of Nsight Compute: these tests check
which runs the stage asks for and what each variant's profile.json then says, not any
measurement (the GPU test tests/gpu/test_gpu.py profiles two real variants).
"""

import json
import os
import stat
from pathlib import Path

import pytest

from cli_run import nsightflow
from nsightflow.io import write_json

ROOT = Path(__file__).resolve().parents[3]

# Writes the --export file; prints one "N passes" line per profiled launch; fails
# a run over several kernels (a regex filter) when FAKE_NCU_FAIL_SHARED is set; writes
# FAKE_NCU_RESULT as the launcher's result (its last argument, a .json) when set.
FAKE_NCU = r"""#!/bin/sh
echo "$@" >> "$FAKE_NCU_LOG"
for last; do :; done
case "$last" in *.json) if [ -n "$FAKE_NCU_RESULT" ]; then
    echo "$FAKE_NCU_RESULT" > "$last"; fi ;; esac
count=1; out=""; filter=""
while [ $# -gt 0 ]; do
    case "$1" in
        --export) out="$2"; shift ;;
        --launch-count) count="$2"; shift ;;
        --kernel-name) filter="$2"; shift ;;
    esac
    shift
done
case "$filter" in
    regex:*) if [ -n "$FAKE_NCU_FAIL_SHARED" ]; then
        echo "==ERROR== The application returned an error code (11)."; exit 1; fi ;;
esac
i=0
while [ $i -lt "$count" ]; do echo "==PROF== Profiling \"k\": 0%....100% - 13 passes"; i=$((i+1)); done
echo report > "$out"
"""


def _profile(tmp_path: Path, fail_shared: bool = False, result: str = "") -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    ncu = bin_dir / "ncu"
    ncu.write_text(FAKE_NCU)
    ncu.chmod(ncu.stat().st_mode | stat.S_IEXEC)
    names = ["v0_naive", "v1_smem", "v2_coarsen2"]
    for name in names:
        status = "wrong" if name == "v2_coarsen2" else "ok"
        write_json(
            tmp_path / f"{name}.json",
            {"family": "jacobi2d", "variant": name, "status": status, "message": "x"},
        )
    env = {
        **os.environ,
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "FAKE_NCU_LOG": str(tmp_path / "ncu.log"),
        "FAKE_NCU_FAIL_SHARED": "1" if fail_shared else "",
        "FAKE_NCU_RESULT": result,
    }
    out = tmp_path / "profile"
    argv = ["profile", "--family", "jacobi2d"]
    argv += ["--kernels-dir", str(ROOT / "kernels"), "--variant", *names, "--cubin"]
    argv += [str(tmp_path / f"{n}.cubin") for n in names]
    argv += ["--verify", *(str(tmp_path / f"{n}.json") for n in names)]
    argv += ["--out-dir", str(out)]
    proc = nsightflow(*argv, env=env)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def _runs(tmp_path: Path) -> list[str]:
    """The profiling runs asked of ncu (not its --version for provenance)."""
    log = (tmp_path / "ncu.log").read_text().splitlines()
    return [line for line in log if "--export" in line]


def _meta(out: Path, name: str) -> dict:
    return json.loads((out / name / "profile.json").read_text())


def test_the_verified_variants_share_one_ncu_run_and_report(tmp_path):
    out = _profile(tmp_path)
    runs = _runs(tmp_path)
    assert len(runs) == 1  # one ncu process for the family
    assert "regex:^(jacobi2d_v0|jacobi2d_v1)$" in runs[0]
    assert "--launch-count 4" in runs[0]  # two variants x two profiled sizes
    shared = sorted(out.glob("jacobi2d.*.ncu-rep"))
    assert len(shared) == 1
    v0, v1 = _meta(out, "v0_naive"), _meta(out, "v1_smem")
    for meta, first in ((v0, 0), (v1, 2)):
        assert meta["status"] == "ok"
        assert [r["size"] for r in meta["reports"]] == [2048, 8192]
        assert {r["file"] for r in meta["reports"]} == {f"../{shared[0].name}"}
        assert {r["first_action"] for r in meta["reports"]} == {first}
        assert {r["actions"] for r in meta["reports"]} == {2}
        assert [r["passes"] for r in meta["reports"]] == [13, 13]
        assert meta["run"]["variants"] == ["v0_naive", "v1_smem"]
    skipped = _meta(out, "v2_coarsen2")  # verification failed: not profiled
    assert skipped["status"] == "wrong" and skipped["skipped"] is True


def test_a_variant_s_launches_are_placed_by_what_the_launcher_made(tmp_path):
    # the launcher says v0 made no launch at either size (an empty grid is not
    # launched, as HYB SpMV's COO part on a banded matrix), v1 one at each: ncu then
    # profiled only v1's two, so v1's part of the report starts at launch 0, not 2
    made = json.dumps({"status": "ok", "message": "", "launches": [[0, 0], [1, 1]]})
    out = _profile(tmp_path, result=made)
    v0, v1 = _meta(out, "v0_naive"), _meta(out, "v1_smem")
    assert {(r["first_action"], r["actions"]) for r in v0["reports"]} == {(0, 0)}
    assert {(r["first_action"], r["actions"]) for r in v1["reports"]} == {(0, 2)}


def test_without_the_launcher_s_counts_the_declared_launches_place_each_variant(
    tmp_path,
):
    out = _profile(tmp_path, result='{"status": "ok", "launches": "garbled"}')
    v1 = _meta(out, "v1_smem")
    assert {(r["first_action"], r["actions"]) for r in v1["reports"]} == {(2, 2)}


def test_a_failed_shared_run_profiles_each_variant_alone(tmp_path):
    out = _profile(tmp_path, fail_shared=True)
    runs = _runs(tmp_path)
    assert len(runs) == 3  # the shared run, then one per verified variant
    assert not list(out.glob("jacobi2d.*.ncu-rep"))  # the failed run leaves nothing
    for name in ("v0_naive", "v1_smem"):
        meta = _meta(out, name)
        assert meta["status"] == "ok"
        assert {r["file"] for r in meta["reports"]} == {"n2048+8192.ncu-rep"}
        assert (out / name / "n2048+8192.ncu-rep").is_file()
        assert meta["message"].startswith("profiled alone: the family's shared ncu run")


@pytest.mark.parametrize("option", ["--cubin", "--verify"])
def test_one_path_per_variant_or_a_one_line_error(tmp_path, option):
    argv = ["profile", "--family", "jacobi2d", "--variant", "v0_naive", "v1_smem"]
    for name in ("--cubin", "--verify"):
        argv += [name, "a"] if name == option else [name, "a", "b"]
    argv += ["--out-dir", str(tmp_path / "p")]
    proc = nsightflow(*argv)
    assert proc.returncode != 0
    assert f"1 {option} paths for 2 --variant names" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# --- a family report measured on the H200 (2026-12-01) -----------------------------

TRANSPOSE = ROOT / "tests" / "data" / "h200_transpose_family"
KERNELS = {"v0_naive": "transpose_v0", "v1_tiled": "transpose_v1"}
KERNELS["v2_padded"] = "transpose_v2"


def _analyze_measured(data: Path, family: str, kernels: dict[str, str], tmp_path: Path):
    """Parse each variant's part of a family's shared H200 report, then analyze."""
    import pandas as pd

    from recorded import analyze_measured

    shared = list((data / f"profile/{family}").glob("*.ncu-rep"))
    assert len(shared) == 1  # one report for the family's variants
    out = analyze_measured(
        data, family, ROOT / "tests/data/diagnosis_families", tmp_path
    )
    analysis = pd.read_csv(out / "analysis.csv")
    assert analysis[analysis["profiled"]]["size"].nunique() == 1
    hot = pd.read_csv(out / "hotspots.csv")
    # each variant read its own launch of the shared report
    assert {v: set(g["kernel"]) for v, g in hot.groupby("variant")} == {
        v: {k} for v, k in kernels.items()
    }
    shares = hot.groupby(["variant", "size", "kernel"])["share"].sum()
    assert shares.to_numpy() == pytest.approx(1.0, abs=0.01)
    found = pd.read_csv(out / "findings.csv")
    primary = found[
        (found["role"] == "primary") & found["section"].isin(["baseline", "step"])
    ]
    by = {(r.section, r.variant): r for r in primary.itertuples()}
    by[("all", "")] = found  # every finding, for the tests that read the others
    return by


def test_each_variant_reads_its_own_launch_of_the_shared_h200_report(tmp_path):
    by = _analyze_measured(TRANSPOSE, "transpose", KERNELS, tmp_path)
    # the strided store (line 10), its drain at the exit counted to it
    assert by[("baseline", "v0_naive")].rule == "uncoalesced_stores"
    assert by[("baseline", "v0_naive")].line == 10
    assert by[("step", "v1_tiled")].rule == "uncoalesced_stores"  # the fix names it
    assert by[("step", "v2_padded")].rule == "bank_conflicts"


# --- families the rules were not written against, measured on the H200 -------------

UNSEEN = ROOT / "tests" / "data" / "h200_unseen"


def test_low_occupancy_is_the_baseline_cause_and_its_fix_the_step(tmp_path):
    kernels = {"v0_fat_buffer": "staging_v0", "v1_lean_buffer": "staging_v1"}
    kernels["v2_float4"] = "staging_v2"
    by = _analyze_measured(UNSEEN, "staging", kernels, tmp_path)
    base = by[("baseline", "v0_fat_buffer")]
    # 48 KB of shared memory per block: 4 blocks, 8 warps per SM (12.5%)
    assert base.rule == "low_occupancy" and base.line == 14
    assert "launch__occupancy_limit_shared_mem" in base.message
    assert by[("step", "v1_lean_buffer")].rule == "occupancy"
    # v1 could hold every warp slot but holds 26%: its 64-thread blocks retire fast
    found = by[("all", "")]
    gap = found[(found["variant"] == "v1_lean_buffer") & (found["section"] == "step")]
    assert "occupancy_gap" in set(gap["rule"])


def test_local_memory_is_the_baseline_cause_and_its_fix_the_step(tmp_path):
    kernels = {"v0_local_window": "window_v0", "v1_register_window": "window_v1"}
    by = _analyze_measured(UNSEEN, "window", kernels, tmp_path)
    base = by[("baseline", "v0_local_window")]
    # the run-time indexed w[16]: its local stores on the fill line fill the LSU queue
    assert base.rule == "local_memory" and base.line == 14
    assert by[("step", "v1_register_window")].rule == "local_memory"
