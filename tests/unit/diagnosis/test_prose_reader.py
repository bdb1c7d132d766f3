"""What an expert who read the replayed reports without the code found false in them.

Each test reads its expected numbers from analysis.csv, context.json or the kernel
source of the bundled H200 recording, never from the code under test:

- reduction v4's "what next" fuses a sum as if it were an iterated stencil, calls its
  3.9 us above the ideal time "per launch" where its floor allows 0.4 us of fixed
  cost, and does not say that it reaches 99% of the copy bandwidth at 2^26;
- the suggestions name the baseline's causes otherwise than its own section and plan;
- a suggestion's limiter prints another share of the same unit than the brief;
- v2 is advised several independent loads per thread, which its loop already has;
- the baseline's section calls v0 latency-bound and memory-bound;
- SGEMM, an FP32 ladder with a 1e-5 tolerance, is told tensor cores or fewer FLOPs;
- v6's loads are "too few warps" where ncu notes it has warps to spare;
- v7 at 94% of cuBLAS "matches the vendor library";
- the figure draws two cuBLAS rates at n = 8192;
- v8's traced kernel time, 2x its timed median, passes without remark.
"""

import json
import re

import pandas as pd
import pytest
import yaml

from recorded import ROOT, analysed_families, written_reports

FAMILIES = ("reduction", "sgemm")


@pytest.fixture(scope="module")
def replayed(recording, tmp_path_factory):
    """The analysis folder and the report of each family, by family."""
    folders = analysed_families(recording, FAMILIES, tmp_path_factory)
    return folders, written_reports(folders, tmp_path_factory, recording)


@pytest.fixture(scope="module")
def analysed(replayed):
    return replayed[0]


@pytest.fixture(scope="module")
def reports(replayed):
    return replayed[1]


def _table(folder):
    return pd.read_csv(folder / "analysis.csv").set_index(["variant", "size"])


def _advice(folder, variant):
    found = pd.read_csv(folder / "findings.csv")
    rows = found[(found["section"] == "advice") & (found["rule"] == "advice")]
    return list(rows[rows["variant"] == variant]["message"])


def _section(report, number):
    """The appendix section ``A.<number>``'s text, up to the next section."""
    start = report.index(f"### A.{number} ")
    end = report.find("\n### A.", start + 1)
    return report[start : end if end > 0 else None]


def test_a_sum_is_not_told_to_fuse_stencil_sweeps(reports):
    brief = reports["reduction"].split("## 1.")[0]
    assert "What next" in brief
    assert "stencil" not in reports["reduction"]
    assert "sweeps per launch" not in reports["reduction"]


def test_v4_s_time_above_its_ideal_is_per_launch_where_its_stream_beats_the_copy(
    analysed, reports
):
    """v4 is 3.9 us above its ideal time at 2^24, and the family's overhead bound is
    0.44 us; but from 2^24 to 2^26 its stream runs above the copy bandwidth, so the
    gap is not "at most 0.4 us fixed, the rest a slow stream": it is per launch."""
    folder = analysed["reduction"]
    table = _table(folder)
    ctx = json.loads((folder / "context.json").read_text())
    copy = ctx["ceilings"]["copy_gbps"]
    v4 = table.loc["v4_vec4_atomic"]
    ideal_us = v4["ideal_bytes"] / copy / 1e3  # bytes over GB/s, in us
    gap = v4.loc[2**24, "time_median_us"] - ideal_us.loc[2**24]
    fixed = min(  # the least any variant took above its ideal time, any size
        r["time_median_us"] - r["ideal_bytes"] / copy / 1e3
        for _, r in table.iterrows()
        if r["status"] == "ok" and r["ideal_bytes"] > 0
    )
    assert 3.5 < gap < 4.5 and 0 < fixed < 1.0, (gap, fixed)
    extra = (v4.loc[2**26, "ideal_bytes"] - v4.loc[2**24, "ideal_bytes"]) / (
        v4.loc[2**26, "time_median_us"] - v4.loc[2**24, "time_median_us"]
    )
    assert extra / 1e3 > copy  # GB/s: the stream beats the copy bandwidth
    brief = reports["reduction"].split("## 1.")[0]
    assert "per launch (ramp-up, tail)" not in reports["reduction"]
    # on the family's one per-launch model v4 is at its floor: its bytes at the
    # marginal rate and the rest paid once per launch
    launch = v4.loc[2**24, "time_median_us"] - v4.loc[2**24, "ideal_bytes"] / extra
    assert f"the other {launch:.1f} us of its" in brief and "paid once per" in brief
    assert f"at most {fixed:.1f} us is the family's fixed cost" not in brief
    assert "running below the copy bandwidth" not in brief
    assert f"({100 * extra / 1e3 / copy:.0f}% of the copy bandwidth)" in brief


def _causes(text):
    """The bold cause labels of a baseline section or plan."""
    return set(re.findall(r"\*\*([A-Z][^*]+)\*\* (?:takes|\()", text))


def test_the_baseline_s_suggestion_names_a_cause_of_its_own_section(reports):
    report = reports["reduction"]
    head = {m.group(1): m.group(2) for m in re.finditer(r"### A\.(\d+) (.+)", report)}
    baseline = next(k for k, t in head.items() if "under Nsight Compute" in t)
    plan = next(k for k, t in head.items() if t == "Optimization plan")
    advice = next(k for k, t in head.items() if t == "Suggestions for every variant")
    said = _causes(_section(report, baseline))
    assert said == _causes(_section(report, plan)), said
    told = re.findall(
        r"- \*\*([^*]+)\*\* in `v0_interleaved` at", _section(report, advice)
    )
    assert told and set(told) <= said, (told, said)


def test_a_suggestion_s_limiter_is_the_brief_s(reports):
    report = reports["reduction"]
    brief = report.split("## 1.")[0]
    head = {m.group(2): m.group(1) for m in re.finditer(r"### A\.(\d+) (.+)", report)}
    advice = _section(report, head["Suggestions for every variant"])
    # the remedy said against the limiter is one that can relieve it: v0's and v1's
    # L1/shared is their shared-memory tree (v2's L2 is named by no remedy)
    for variant in ("v0_interleaved", "v1_sequential"):
        row = next(r for r in brief.splitlines() if r.startswith(f"| `{variant}`"))
        cell = row.split("|")[6].strip()  # "L1/shared 80% (`reduce_v0`)"
        unit, pct, kernel = re.fullmatch(r"(.+) (\d+)% \(`(\w+)`\)", cell).groups()
        told = next(
            line
            for line in advice.splitlines()
            if f"in `{variant}` at" in line and "its longest launch" in line
        )
        assert f"is {unit} {pct}% of its peak in its longest launch `{kernel}`" in (
            told
        ), (cell, told)
        assert "**Shared-memory pipe (MIO)**" in told, told


def test_v2_is_not_told_to_load_what_its_loop_already_loads(analysed):
    source = (ROOT / "kernels/reduction/v2_shuffle.cu").read_text()
    loop = re.search(
        r"for \(; i \+ 3 \* s < end; i \+= 4 \* s\) \{(.*?)\}", source, re.S
    )
    assert loop and loop.group(1).count("X[") == 4  # four independent loads
    told = _advice(analysed["reduction"], "v2_shuffle")
    told = [m for m in told if "Too few bytes in flight" in m]
    assert told
    for message in told:
        assert "several independent loads per thread" not in message, message
        assert "16-byte (float4) accesses" in message, message


def test_the_baseline_section_gives_one_regime(reports):
    report = reports["reduction"]
    head = {m.group(1): m.group(2) for m in re.finditer(r"### A\.(\d+) (.+)", report)}
    baseline = next(k for k, t in head.items() if "under Nsight Compute" in t)
    text = _section(report, baseline)
    assert "`v0_interleaved` is under every roof of the roofline" in text
    assert "Memory-bound" not in text and "memory-bound" not in text, text


def test_an_fp32_ladder_is_not_told_to_change_its_arithmetic(reports):
    manifest = yaml.safe_load((ROOT / "kernels/sgemm/family.yaml").read_text())
    assert manifest["tolerance"] < 2.0**-11  # TF32 rounds to 10 mantissa bits
    report = reports["sgemm"]
    assert "where the precision allows" not in report
    assert "fewer FLOPs" not in report
    for line in report.splitlines():
        if "tensor core" in line and not line.startswith(
            ("> ", "|", "+", "-   ", "@@")
        ):
            # one-pass TF32 is out; 3xTF32 keeps about FP32 accuracy on tensor cores
            assert "would change the arithmetic" in line or (
                "3xTF32" in line and "beyond this family's tolerance" in line
            ), line


def test_v6_s_loads_are_not_too_few_warps_where_ncu_notes_warps_to_spare(analysed):
    folder = analysed["sgemm"]
    stalls = pd.read_csv(folder / "stalls.csv").set_index(["variant", "size", "reason"])
    v6 = stalls.loc[("v6_vectorized", 4096)]["cycles"]
    assert v6["not_selected"] > v6["long_scoreboard"]  # 2.34 against 0.55
    rules = pd.read_csv(folder / "rules.csv")
    mine = rules[(rules["variant"] == "v6_vectorized") & (rules["size"] == 4096)]
    assert mine["message"].str.contains("sufficient warps").any()
    found = pd.read_csv(folder / "findings.csv")
    said = found[(found["variant"] == "v6_vectorized") & (found["size"] == 4096)]
    assert said["message"].notna().any()
    assert not said["message"].dropna().str.contains("too few warps").any()


def test_94_percent_of_cublas_is_not_a_match(analysed, reports):
    table = _table(analysed["sgemm"])
    v7, cublas = (
        table.loc[("v7_double_buffer", 4096)],
        table.loc[("v8_torch_matmul", 4096)],
    )
    pct = 100 * cublas["time_median_us"] / v7["time_median_us"]
    noise = max(0.02, v7["time_iqr_us"] / v7["time_median_us"])
    assert 100 / pct > 1 + noise  # outside its noise: no tie
    report = reports["sgemm"]
    assert "matches the vendor library" not in report
    assert "runs at the rate of" not in report
    assert f"`v7_double_buffer` runs at {pct:.0f}% of cuBLAS SGEMM" in report


def test_one_cublas_rate_at_8192(analysed):
    from nsightflow.plot.perf import ladder_vendor

    folder = analysed["sgemm"]
    ctx = json.loads((folder / "context.json").read_text())
    table = pd.read_csv(folder / "analysis.csv")
    v8 = table[(table["variant"] == "v8_torch_matmul") & (table["size"] == 8192)]
    own = ctx["ceilings"]["vendor_sgemm_gflops"]  # cupy.matmul's, at n = 8192
    assert abs(own / v8["gflops"].iloc[0] - 1) > 0.01  # 50.4 against 51.3 TFLOP/s
    vendor, by = ladder_vendor(table, ctx)
    assert vendor.size == 8192
    assert vendor.gflops == pytest.approx(v8["gflops"].iloc[0])
    assert "v8_torch_matmul" in by


def test_v8_s_traced_time_says_why_it_is_twice_the_median(recording, analysed, reports):
    events = pd.read_csv(next(recording.glob("timeline/sgemm/*v8_torch_matmul*.csv")))
    table = _table(analysed["sgemm"])
    median = table.loc[("v8_torch_matmul", 4096), "time_median_us"]
    mine = events[(events["kind"] == "kernel") & (events["size"] == 4096)]
    traced = (mine["end_ns"] - mine["start_ns"]).sum() / 1e3
    assert traced / median > 1.9 and len(mine) == 2
    each = (mine["end_ns"] - mine["start_ns"]).mean() / 1e3
    report = reports["sgemm"]
    assert f"`v8_torch_matmul` at n = 4096 {traced:,.1f} against {median:,.1f} us" in (
        report
    )
    assert f"its trace launches one kernel 2 times, {each:,.1f} us each" in report


def test_v8_s_copies_over_kernel_time_are_also_given_over_one_of_its_launches(
    recording, reports
):
    # its trace launches cuBLAS's kernel twice: 7.5x over both is 15x over one, and
    # the other variants' ratios are over their one launch
    events = pd.read_csv(next(recording.glob("timeline/sgemm/*v8_torch_matmul*.csv")))
    at = events[events["size"] == 4096]
    copies = at[at["kind"].str.startswith("memcpy")]
    kernels = at[at["kind"] == "kernel"]
    copy_ns = (copies["end_ns"] - copies["start_ns"]).sum()
    both = copy_ns / (kernels["end_ns"] - kernels["start_ns"]).sum()
    one = copy_ns / (kernels["end_ns"] - kernels["start_ns"]).mean()
    line = next(
        t
        for t in reports["sgemm"].splitlines()
        if t.startswith("- At n = 4096, transfers")
    )
    assert (
        f"`v8_torch_matmul` {both:.1f}x (over its 2 launches of one kernel; "
        f"{one:.1f}x over one)" in line
    )


def test_an_fp32_kernel_s_issue_gain_is_its_idle_issue_slots(analysed):
    # at n = 1024 v7's 64 blocks leave 68 of 132 SMs idle: its 75% is the busy SMs'
    # and the grid is advised there; at 4096 the idle slots bound the issue gain
    table = _table(analysed["sgemm"])
    found = pd.read_csv(analysed["sgemm"] / "findings.csv")
    told = found[(found["rule"] == "advice") & (found["metric"] == "issue_bound")
                 & (found["variant"].isin(["v6_vectorized", "v7_double_buffer"]))]  # fmt: skip
    assert set(told["size"]) == {4096}
    for _, r in told.iterrows():
        busy = table.loc[(r["variant"], r["size"]), "issue_pct"]  # 73%, 82%
        assert r["expected_gain"] <= 100 / busy * (1 + 1e-6), r["message"]


def test_the_3xtf32_route_is_not_bounded_by_the_fp32_floor(reports):
    # the issue-bound item's "up to" is the FFMA gain (idle issue slots); 3xTF32 runs
    # on tensor cores, whose peak the FP32 floor (cuBLAS's FP32 SGEMM) does not bound
    items = [x for x in reports["sgemm"].splitlines() if "3xTF32 on tensor cores" in x]
    assert items
    for item in items:
        assert "the expected gain below is that" in item
        assert "does not bound and this report does not estimate" in item


def test_a_step_that_did_what_it_meant_without_a_time_change_says_so(analysed, reports):
    # reduction v3's float4 loads halved its issued instructions and took its load
    # sectors per request from 4 to 16, and the time stayed within its noise line:
    # "no mechanism to credit" hid that the mechanism happened
    table = _table(analysed["reduction"])
    n = 2**24
    a, b = (table.loc[(v, n), "inst_executed"] for v in ("v2_shuffle", "v3_vec4"))
    assert b < a / 1.1
    report = reports["reduction"]
    step = report[report.index("### 2.3 `v3_vec4`") : report.index("### 2.4 ")]
    assert "no measurable change" in step
    assert f"issued warp instructions {a:,.0f} -> {b:,.0f}" in step, step
    assert "The step did what it meant (" in step
    assert "what it changed did not bound the launch" in step
    assert "no mechanism to credit" not in step


def test_a_declared_regression_is_not_scored_against_the_advice(analysed):
    # SGEMM v2 stores B's tile transposed to show 32-way conflicts (5x slower); its
    # fewer shared-memory instructions (ptxas fused the reads) read as "carried out
    # suggestion 1 ... and did not pay"
    manifest = yaml.safe_load((ROOT / "kernels" / "sgemm" / "family.yaml").read_text())
    idea = manifest["variants"]["v2_tiled_transposed"]["idea"]
    assert "deliberate regression" in idea
    found = pd.read_csv(analysed["sgemm"] / "findings.csv")
    scored = found[(found["rule"] == "advice_score")]
    assert "v3_padded" in set(scored["variant"])  # the others are scored
    assert "v2_tiled_transposed" not in set(scored["variant"])


def test_a_step_that_adds_atomics_is_not_expected_to_shrink_them(analysed, reports):
    # reduction v4 finishes with one atomicAdd per block where v3 had no atomics
    table = _table(analysed["reduction"])
    n = 2**24
    assert table.loc[("v3_vec4", n), "l2_atomic_sectors"] == 0
    assert table.loc[("v4_vec4_atomic", n), "l2_atomic_sectors"] > 0
    report = reports["reduction"]
    step = report[report.index("### 2.4 `v4_vec4_atomic`") : report.index("### 2.5 ")]
    expected = step[step.index("**Expected**") :].split("**Observed:**")[0]
    assert "a launch removed" in expected
    assert "global atomics" not in expected, expected
