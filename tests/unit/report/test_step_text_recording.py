"""The step sections of the bundled H200 recording's reports, read as text: what a
step is credited with, the line it is shown at, and what the text says the counters
show (scan, histogram, reduction).
"""

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from nsightflow.analysis.timeline import write_analysis
from nsightflow.report.build import write_report
from recorded import analyze_measured

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def reports(recording, tmp_path_factory):
    """family -> report.md, with the per-instruction samples (the cited lines)."""
    out = {}
    for family in ("scan", "histogram", "reduction"):
        tmp = tmp_path_factory.mktemp(family)
        analysis = analyze_measured(recording, family, ROOT / "kernels", tmp)
        line = tmp / "timeline"  # the traced program sequence, as the workflow has it
        write_analysis(
            sorted(recording.glob(f"timeline/{family}/*.json")),
            sorted(recording.glob(f"timeline/{family}/*.csv")),
            line,
        )
        summary = line / "timeline_summary.csv"
        write_report(
            analysis, tmp / "report" / "figures", tmp / "report", timeline=summary
        )
        out[family] = (tmp / "report" / "report.md").read_text()
    return out


def _section(md: str, heading: str) -> str:
    """One step section of a report, from its heading to the next heading."""
    start = md.index(heading)
    end = md.find("\n#", start + len(heading))
    return md[start : end if end > 0 else len(md)]


def test_scan_v2_credits_the_tree_pass_it_removed(reports):
    """v1 -> v2 at 2^24: its tile pass no longer runs the shared-memory tree
    (shared loads and stores 4.11 M -> 0.03 M of 46.2 M -> 2.05 M instructions);
    the load requests fell 4x, the instructions 23x: not "wider loads"."""
    step = _section(reports["scan"], "### 2.2 `v2_reduce_then_scan`")
    why = step.split("**Also:**")[0]
    assert "wider loads" not in why
    assert "instruction count" in why
    assert "shared-memory loads and stores 4.11 M -> 0.03 M" in why
    # the line is one of the tile pass (scan_v2_reduce, in the shared header), not
    # the float4 store of the scan pass, another launch
    line = re.search(r"hottest line is (\d+) of `([^`]+)`", why)
    assert line is not None
    assert (line.group(1), line.group(2)) == ("39", "reduce_then_scan.cuh")
    header = (ROOT / "kernels/scan/reduce_then_scan.cuh").read_text().splitlines()
    assert "x.x + x.y" in header[38]


def test_histogram_skew_is_said_as_its_counters_show(reports, recording, tmp_path):
    """The skewed input (90% of the bytes in 4 bins) on v0's kernel is 4% slower
    (4,316 -> 4,487 us), and its private histogram counts fewer shared-atomic
    conflicts than the uniform input's (0.39 against 2.16 per atomic instruction),
    while 8 replicated copies raise them 7.2x: no sentence says that same-address
    atomics serialize; the step that changes the input says the same code's times."""
    from recorded import analyze as _analyze

    a = pd.read_csv(_analyze(recording, "histogram", tmp_path) / "analysis.csv")
    a = a[a["size"] == 2**24].set_index("variant")
    t0 = a.loc["v0_global_atomic", "time_median_us"]
    t1 = a.loc["v3_global_atomic_skewed", "time_median_us"]
    assert 1.0 < t1 / t0 < 1.05
    per = a["smem_conflicts_atom"] / a["shared_atom_inst"]
    assert per["v4_private_skewed"] < per["v1_private"]  # the skew: fewer conflicts
    md = reports["histogram"]
    assert "same address serialize" not in md
    assert "same shared address are replayed" not in md
    step = _section(md, "### 2.3 `v3_global_atomic_skewed`")
    assert f"{t0:,.0f} -> {t1:,.0f} us (+{100 * (t1 / t0 - 1):.1f}%)" in step
    s0 = a.loc["v0_global_atomic", "l2_atomic_sectors"] / 1e6
    s1 = a.loc["v3_global_atomic_skewed", "l2_atomic_sectors"] / 1e6
    assert f"{s0:,.1f} M -> {s1:,.1f} M" in step


def test_reduction_v4_says_its_zeroed_output_is_not_timed(reports, recording):
    """v4 adds each block's sum into S, which its manifest zeroes first (``init:
    {S: zero}``); the timed launches run the kernel alone (the fill is made once,
    before them), so the step that drops v3's second launch says so, with the
    memset its traced program sequence paid."""
    manifest = yaml.safe_load((ROOT / "kernels/reduction/family.yaml").read_text())
    variants = manifest["variants"]
    assert variants["v4_vec4_atomic"]["init"] == {"S": "zero"}
    assert "init" not in variants["v3_vec4"]
    traced = pd.read_csv(recording / "timeline/reduction/v4_vec4_atomic.csv")
    memsets = traced[traced["kind"] == "memset"]
    us = (memsets["end_ns"] - memsets["start_ns"]).sum() / 1e3
    md = reports["reduction"]
    v4 = _section(md, "### 2.4 `v4_vec4_atomic`")
    assert "**Not timed:** zeroing `S` before the launch" in v4
    assert f"{us:,.2f} us in its traced sequence at n = 2^24" in v4
    for other in ("### 2.1 ", "### 2.2 ", "### 2.3 "):
        assert "Not timed" not in _section(md, other)


def test_reduction_overhead_says_the_launch_that_bounds_it(reports):
    """The family's overhead is the least any variant took beyond its ideal time at
    any size: v4's own 0.44 us at 2^26 (at 2^20 it took 5.31 us, which a cost the
    same at every size cannot be). v4's stream runs above the copy bandwidth from
    2^24 to 2^26, so its gap at 2^24 is per launch, not that overhead, and every
    floor of the family is on that line's model
    (tests/unit/diagnosis/test_advice_marginal.py checks the numbers)."""
    md = reports["reduction"]
    said = md[md.index("**What next**") :].split("\n\n")[1]
    assert (
        "No gain left inside `v4_vec4_atomic` at n = 2^24 that the family's model"
        in (said)
    )
    # the floor is the line fitted to its own sizes: its intercept is not a cost a
    # launch "cannot shed", it holds whatever each launch does once
    assert "its intercept" in said and "cannot shed" not in said
    assert "paid once per launch" in said
    assert "size-independent overhead" not in said
    # the other variants' floors are on the same per-launch model, not on 0.4 us
    assert "plus 0.4 us of size-independent overhead" not in md
    assert "plus 5.0 us paid once per launch" in md


def _histogram_counters(recording, tmp_path) -> pd.DataFrame:
    """The histogram's analysis table at 2^24, one row per variant."""
    from recorded import analyze as _analyze

    a = pd.read_csv(_analyze(recording, "histogram", tmp_path) / "analysis.csv")
    return a[a["size"] == 2**24].set_index("variant")


def test_histogram_replication_says_its_atomic_conflicts_rose(
    reports, recording, tmp_path
):
    """The 8 sub-histograms were meant to put fewer lanes on a shared address; their
    shared-atomic bank conflicts per atomic instruction rose instead (uniform 2.16 ->
    2.49, skewed 0.39 -> 2.81: the 257-word pitch puts copy c of bin b in bank
    (c + b) mod 32). Each step says both numbers, not only "no net change"."""
    a = _histogram_counters(recording, tmp_path)
    per = a["smem_conflicts_atom"] / a["shared_atom_inst"]
    md = reports["histogram"]
    for heading, before, after in (
        ("### 2.2 `v2_replicated`", "v1_private", "v2_replicated"),
        ("### 2.5 `v5_replicated_skewed`", "v4_private_skewed", "v5_replicated_skewed"),
    ):
        assert per[after] > per[before]
        step = _section(md, heading)
        body = step.split("\n", 1)[1]  # not the heading, which is the manifest's idea
        said = f"`{before}`'s {per[before]:.2f} to {per[after]:.2f} per atomic"
        assert said in body
        assert "conflicts rose" in body
    # the skewed input's private histogram conflicts less than the uniform one's: no
    # heading says the contention moves into shared memory
    assert per["v4_private_skewed"] < per["v1_private"]
    assert "contention moves into shared memory" not in md
    # the private histogram with conflicts that fell is not said to have risen
    assert "conflicts rose" not in _section(md, "### 2.1 `v1_private`")


def test_histogram_uniform_input_is_not_said_to_spread_the_atomics(
    reports, recording, tmp_path
):
    """Under the uniform input v0 already sends a third of its L2 atomic sectors to
    one of 94 slices, 80% busy, and the skewed input is 4% slower: the report does
    not contrast the inputs' spread, and the step that changes the input says the
    busiest slice's share and load under both."""
    a = _histogram_counters(recording, tmp_path)
    hot = a["l2_atomic_sectors_max"] / a["l2_atomic_sectors"]
    v0, v3 = "v0_global_atomic", "v3_global_atomic_skewed"
    slices = a.loc[v0, "l2_slices"]
    assert hot[v0] > 10 / slices  # ten times an even share, under the uniform input
    md = reports["histogram"]
    brief = md[: md.index("## Brief")]
    assert "spreads updates over 256 bins" not in brief
    step = _section(md, "### 2.3 `v3_global_atomic_skewed`")
    said = f"{100 * hot[v0]:.0f}% and {100 * hot[v3]:.0f}% of the atomic sectors"
    assert said in step
    pct = a["l2_slice_max_pct"]
    assert f"{pct[v0]:.0f}% and {pct[v3]:.0f}% busy" in step
    assert f"{slices:.0f} L2 slices" in step


def test_one_wave_idle_sms_are_not_advised_longer_lived_blocks(
    reports, recording, tmp_path
):
    """v0 is a grid-stride loop of 1,056 blocks on 132 SMs, 1.0 waves: its blocks
    already live the whole launch, so its idle SM time is not advised "longer-lived
    blocks (grid-stride loops)"."""
    a = _histogram_counters(recording, tmp_path)
    assert a.loc["v0_global_atomic", "waves_per_sm"] <= 1.0
    source = (ROOT / "kernels/histogram/v0_global_atomic.cu").read_text()
    assert "i += s" in source and "gridDim.x" in source  # the grid-stride loop
    md = reports["histogram"]
    appendix = md[md.index("## Appendix") :]
    assert "Idle SM time" in appendix
    assert "longer-lived blocks (grid-stride loops)" not in md


def test_histogram_floors_read_their_own_inputs_fixed_cost(reports):
    """The skewed v4_private_skewed is floored by its own input's least time beyond
    the ideal (its own 15.8 us at 2^20), not by v1_private's 15.6 us on the uniform
    input, the merge of that kernel's block counts."""
    md = reports["histogram"]
    brief = md[md.index("**What next**") : md.index("## 1. Bound")]
    skewed = [x for x in brief.split("\n") if "in `v4_private_skewed` at" in x]
    assert skewed and "(`v4_private_skewed` at n = 2^20)" in skewed[0]
    assert "on the same input" in skewed[0]
    uniform = [x for x in brief.split("\n") if "in `v1_private` at" in x]
    assert uniform and "(`v1_private` at n = 2^20)" in uniform[0]


def test_histogram_replication_expects_no_fewer_global_atomics(reports):
    """8 sub-histograms per block spread the shared atomics' lanes; the block's
    merge into the global histogram is v1's (256 atomics per block)."""
    md = reports["histogram"]
    for heading in ("### 2.2 `v2_replicated`", "### 2.5 `v5_replicated_skewed`"):
        expected = _section(md, heading).split("**Expected** to shrink:")[1]
        expected = expected.split("**Observed:**")[0]
        assert "global atomics" not in expected, heading
        assert "shared-memory atomics" in expected, heading


def test_reduction_v1_says_its_lanes_did_not_fill(reports):
    """Sequential addressing was expected to leave fewer lanes idle; its lanes not
    predicated off went 20.3 -> 20.0 of 32 (its instructions fell): the step's
    expected-vs-observed line says so beside its "as expected"."""
    step = _section(reports["reduction"], "### 2.1 `v1_sequential`")
    line = step.split("**Expected** to shrink:")[1].split("**Limits it now:**")[0]
    assert "fewer idle lanes" in line
    assert "But fewer idle lanes were expected" in line
    assert "20.3 -> 20.0 of 32" in line


def test_reduction_baseline_shares_are_of_the_run(reports):
    """v0 runs two launches: reduce_finish is 25% of the run, not of a launch."""
    md = reports["reduction"]
    base = md[md.index("### A.4") : md.index("### A.6")]
    assert "**A later launch of the run** takes 25% of the run" in base
    assert "% of the launch" not in base.split("Hottest source lines")[0]
    assert "**A later launch of the run** (25% of the run," in base


def test_reduction_step_quotes_one_occupancy_per_kernel(reports):
    """v2 runs reduce_v2 and reduce_finish: the run's row averages the occupancy
    over both by time (76% -> 89%), which no launch ran at; the key metrics, the
    moved metrics and the cause all quote the main kernels' (85% -> 96%)."""
    md = reports["reduction"]
    detail = md[md.index("### A.7 ") : md.index("### A.8 ")]
    said = set(
        re.findall(
            r"chieved occupancy[^%\n]*?(\d+(?:\.\d)?)% -> (\d+(?:\.\d)?)%", detail
        )
    )
    rounded = {(round(float(x)), round(float(y))) for x, y in said}
    assert rounded == {(85, 96)}, said
    assert "of the main kernel (`reduce_v1` -> `reduce_v2`)" in detail
