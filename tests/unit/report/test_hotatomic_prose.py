"""hotatomic's report (H200 recording): each percentage says its basis, an expectation
the counters contradict is not "as expected", and a count from 0 is drawn, not n/a.

- v2 at n = 2^22: its hot slice's atomics need 92% of the launch at v0's slice rate,
  while its global-atomics stalls are 42% of its warps' cycles: two bases of one
  launch, so the sentence naming both says which is which;
- v1's shuffles were expected to cut instructions, and its issued warp instructions
  doubled (1,966,080 -> 3,932,160): its step is "partly as expected" and says so;
- v1 -> v2's shared-memory bank conflicts went 0 -> 550 (v1 has no shared memory, so
  no conflict share): the step-changes map writes the counts.
"""

import re

import pandas as pd
import pytest

from nsightflow.plot.steps import step_changes_figure
from nsightflow.report.build import write_report
from recorded import ROOT, analyze_measured

ADVICE = ROOT / "tests" / "data" / "advice_families"
DATA = ROOT / "tests" / "data" / "h200_advice"


@pytest.fixture(scope="module")
def hot(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hotprose")
    analysis = analyze_measured(DATA, "hotatomic", ADVICE, tmp)
    write_report(analysis, tmp / "report" / "figures", tmp / "report")
    return analysis, (tmp / "report" / "report.md").read_text()


def _profiled(analysis):
    a = pd.read_csv(analysis / "analysis.csv")
    return a[a["profiled"].astype(bool)].set_index("variant")


def test_the_slice_share_and_the_cause_share_each_name_their_basis(hot):
    _, md = hot
    prose = "\n".join(x for x in md.splitlines() if not x.startswith("|"))
    both = [
        s
        for s in re.split(r"(?<=\.)\s", prose)
        if re.search(r"one L2 slice, \d+% of its profiled time", s)
        and re.search(r"\d+% of its (launch|run)", s)
    ]
    assert any("92%" in s and "42%" in s for s in both)  # v2 at 2^22
    for s in both:
        assert "slice rate" in s and "stall cycles" in s, s


def test_an_instruction_count_that_doubled_is_not_as_expected(hot):
    analysis, md = hot
    p = _profiled(analysis)
    before = p.loc["v0_atomic_per_thread", "inst_executed"]
    after = p.loc["v1_atomic_per_warp", "inst_executed"]
    assert after / before == pytest.approx(2.0, rel=0.01)
    step = md.split("### 2.1 ")[1].split("### 2.2 ")[0]
    assert "As expected." not in step
    assert f"{before:,.0f} -> {after:,.0f}" in step
    detail = md.split("### A.6 ")[1].split("### A.7 ")[0]
    assert "As expected:" not in detail and "Partly as expected" in detail


def test_a_count_from_zero_is_drawn_not_na(hot):
    import json

    analysis, _ = hot
    p = _profiled(analysis)
    counts = {
        v: p.loc[v, "smem_conflicts_ld"] + p.loc[v, "smem_conflicts_st"]
        for v in ("v1_atomic_per_warp", "v2_atomic_per_block")
    }
    assert counts["v1_atomic_per_warp"] == 0 and counts["v2_atomic_per_block"] > 0
    a = pd.read_csv(analysis / "analysis.csv")
    ctx = json.loads((analysis / "context.json").read_text())
    found = pd.read_csv(analysis / "findings.csv")
    fig = step_changes_figure(a, ctx, found, pd.read_csv(analysis / "stalls.csv"))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "n/a" not in texts
    assert f"0 → {counts['v2_atomic_per_block']:,.0f}" in texts


def test_a_share_under_a_tenth_of_a_percent_is_not_rounded_up_to_it(hot):
    # v0 at 2^22: 2.28 GB/s of a 4,250 GB/s roofline is 0.054%, A.1 prints 0.05
    analysis, md = hot
    a = pd.read_csv(analysis / "analysis.csv")
    row = a[(a["variant"] == "v0_atomic_per_thread") & (a["size"] == 2**22)].iloc[0]
    assert row["regime_ceiling_pct"] < 0.095
    brief = next(x for x in md.splitlines() if x.startswith("| `v0_atomic_per_thread`"))
    assert f"{row['regime_ceiling_pct']:.2f}% roofline" in brief


def test_the_launch_that_sets_the_slice_rate_is_not_said_to_need_it(hot):
    # v0 at 2^22 served the family's highest slice rate: its "100% of the launch" is
    # its own time over itself, and the report says so instead of quoting it as a need
    _, md = hot
    own = [x for x in md.splitlines() if "its own slice served" in x]
    assert own and all("by construction" in x for x in own)
    # v0's limiter (4,194,304 sectors on its slice) and its advice; v1, v2 quote v0's
    assert any("4,194,304 of its 6,293,504" in x for x in own)
    quoted = [
        x for x in md.splitlines() if "`v0_atomic_per_thread`'s slice served" in x
    ]
    assert quoted and not any("4,194,304 of its 6,293,504" in x for x in quoted)


def test_sectors_per_block_say_how_ncu_counts_an_atomic_on_one_address(hot):
    # v2 issues one atomicAdd per block (16,384 blocks, 16,384 sectors on its slice)
    # and ncu counts 24,837 L2 atomic sectors: 1.5 per block is the counting, not 1.5
    # atomics, and the advice says so
    analysis, md = hot
    v2 = _profiled(analysis).loc["v2_atomic_per_block"]
    v2 = v2[v2["size"] == 2**22].iloc[0] if hasattr(v2, "columns") else v2
    ratio = v2["l2_atomic_sectors"] / v2["grid_blocks"]
    assert 1.45 <= ratio <= 1.55
    said = [
        x for x in md.splitlines() if f"({ratio:.1f} L2 atomic sectors per block" in x
    ]
    assert said and all("counts an atomic on one address as 1.5" in x for x in said)


def test_the_result_of_a_latency_bound_best_says_what_limits_it(hot):
    # v2 is under the roofline's roofs (12% of it) and limited by its slice (92%):
    # the result line says both, as the table's two columns do
    _, md = hot
    result = next(x for x in md.splitlines() if x.startswith("**Result at"))
    row = next(x for x in md.splitlines() if x.startswith("| `v2_atomic_per_block`"))
    cell = next(c.strip() for c in row.split("|") if "L2 slice" in c)
    # the share is the roofline's, the unit is what limits it: one clause each
    assert re.search(
        r"under the roofline's DRAM, L2 and FP32 lines at [\d.]+% of the roofline",
        result,
    )
    assert f"what limits it: {cell}" in result and "latency-bound" not in result
    assert "bound by another unit at" not in result


def test_mio_waits_with_no_mio_work_of_their_own_are_not_a_cause(hot):
    # v0 executes no shared-memory or shuffle instruction; its short_scoreboard waits
    # (12,185 cycles per instruction) fell in v1, which adds five shuffles a warp:
    # they are pooled, not "Also: MIO queue ... 1,804 of the 7,130 us saved"
    analysis, md = hot
    p = _profiled(analysis)
    v0 = p.loc["v0_atomic_per_thread"]
    assert v0["shared_ld_inst"] + v0["shared_st_inst"] == 0
    assert (
        v0["shuffle_thread_inst"]
        == 0
        < p.loc["v1_atomic_per_warp", "shuffle_thread_inst"]
    )
    step = md.split("### 2.1 ")[1].split("### 2.2 ")[0]
    assert "**Also:** MIO queue" not in step and "**Why:** MIO queue" not in step
    assert re.search(
        r"other stall reasons \([^)]*MIO queue: too little MIO work of its own to be "
        r"a cause",
        step,
    ), step
