"""The pattern families as the README's replay of every family reports them.

vecadd, reduction and histogram (one device call of the recording) and conv2d, scan
and spmv (another) read from the session's replay of every family
(tests/conftest.py `every_family_replay`, the README's command): each summary.csv is
the one the H200 wrote, every variant ok at every size, the kernels revision of the
family's own run, and a diagnosis that names the metric each step moved. A family's
report does not depend on which others a run replays (tests/data/replay_checksums.txt
holds the same bytes for every family of that replay).
"""

import json
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
PATTERNS = ("histogram", "reduction", "vecadd")  # the recorded pattern families
PATTERNS_2 = ("conv2d", "scan", "spmv")  # and those of another device call

pytestmark = pytest.mark.timeout(1800)  # the session's replay may be its setup


def recorded_revision(family: str) -> str:
    """The kernels revision of the last run recording.json says measured ``family``."""
    info = json.loads((ROOT / "examples/h200/recording.json").read_text())
    runs = [info, *info.get("additions", [])]
    return [r["kernels_git"] for r in runs if family in r.get("families", [])][-1]


def replayed(work: Path, revisions: dict[str, str], same_as_on_gpu) -> dict:
    """Check the replay in ``work`` of the families of ``revisions``: each summary.csv
    is the one the H200 wrote, every variant is ok at every size and the report names
    the kernels revision of the run the family was recorded by. Returns report.md."""
    reports = work / "results/report"
    md = {}
    for family, revision in revisions.items():
        same_as_on_gpu(reports / family / "summary.csv", family)
        summary = pd.read_csv(reports / family / "summary.csv")
        assert set(summary["status"]) == {"ok"}, family  # every variant, every size
        md[family] = (reports / family / "report.md").read_text()
        assert f"kernels revision {revision}" in md[family], family
    return md


def test_replay_of_the_pattern_families(every_family_replay, same_as_on_gpu):
    """vecadd, reduction and histogram from the recording: the H200's own numbers, the
    provenance of their addition, and a diagnosis that names each step's metrics."""
    revisions = {family: recorded_revision(family) for family in PATTERNS}
    md = replayed(every_family_replay, revisions, same_as_on_gpu)
    # reduction: divergence in the baseline, instructions and lanes per step, launches
    assert "Warp divergence: only 20.3 of 32 lanes" in md["reduction"]
    assert "Issued warp instructions 20.13 M -> 3.93 M" in md["reduction"]
    assert "`v1_sequential` runs 2 launches at n = 2^24" in md["reduction"]
    # histogram: global atomics leave the L2 for shared memory (the H200's counters of
    # the default experiment, 2026-12-02)
    assert "Global atomics in L2 17,790,519 -> 50,688 sectors" in md["histogram"]
    assert "`smsp__sass_inst_executed_op_shared_atom.sum`" in md["histogram"]
    # vecadd: float4 loads carry 4x the sectors per request
    assert "Global load sectors per request 4.00 -> 16.00" in md["vecadd"]


def test_replay_of_the_later_pattern_families(every_family_replay, same_as_on_gpu):
    """conv2d, scan and spmv from their own addition: every variant verified and timed
    at every size, and a diagnosis that names the metric each step moved."""
    revisions = {family: recorded_revision(family) for family in PATTERNS_2}
    md = replayed(every_family_replay, revisions, same_as_on_gpu)
    for family in PATTERNS_2:
        checked = [
            size
            for path in (ROOT / "examples/h200/verify" / family).glob("*.json")
            for size in json.loads(path.read_text())["sizes"]
        ]
        assert any(s["n"] & (s["n"] - 1) for s in checked), family  # odd sizes too
        assert all(s["ok"] and s["rel_l2_error"] < 1e-5 for s in checked), family
    # conv2d: tiling brings barrier stalls and cuts issued instructions
    assert "Stall **barrier** rose from 0.00 to 2.41" in md["conv2d"]
    assert "Issued warp instructions 125.28 M -> 84.48 M" in md["conv2d"]
    # scan: Brent-Kung's strided tree conflicts and idles lanes; three launches
    assert "Shared-memory bank conflicts 299,123 -> 15,026,432" in md["scan"]
    assert "Lane efficiency 96% -> 68%" in md["scan"]
    assert "`v2_reduce_then_scan` runs 3 launches at n = 2^24" in md["scan"]
    # scan v3: pass 3 through shared memory: coalesced, fewer sectors per request
    assert "Global load sectors per request 21.44 -> 6.14" in md["scan"]
    # spmv: CSR thread-per-row scatters, warp-per-row idles lanes, ELL pads, HYB atomics
    assert "Global load sectors per request 21.69 -> 1.60" in md["spmv"]
    assert "lanes sit idle" in md["spmv"]
    assert "DRAM bytes 93.4 MB -> 1,113.5 MB" in md["spmv"]
    assert "Global atomics in L2 0 -> 735,952 sectors" in md["spmv"]
