"""One regime and one limiter per variant and size, on the bundled H200 recording.

The regime is the roofline's (DRAM, L2, the FP32 rate); what limits a variant now is
the unit closest to its peak, of its longest launch where a run has several, said the
same in the brief's table, the step and the appendix. The expected numbers are read
from analysis.csv and context.json here, not from the code under test.
"""

import json
import re

import pandas as pd
import pytest

from recorded import FAMILIES
from recorded import analyze as _analyze

BOUND_PCT = 60.0  # ncu SpeedOfLight's "high" line: a unit this busy limits the launch
UNITS = {  # the analysis columns of the units the brief names, and their names
    "dram_throughput_pct": "DRAM",
    "l2_throughput_pct": "L2",
    "l1_throughput_pct": "L1/shared",
    "issue_pct": "issue slots",
}


@pytest.fixture(scope="module")
def analysed(recording, tmp_path_factory):
    return {f: _analyze(recording, f, tmp_path_factory.mktemp(f)) for f in FAMILIES}


@pytest.fixture(scope="module")
def reports(analysed):
    from nsightflow.report.sections.family import ReportBuilder

    out = {}
    for family in ("scan", "sgemm", "reduction", "histogram"):
        if family not in analysed:
            continue
        folder = analysed[family]
        out[family] = ReportBuilder(
            pd.read_csv(folder / "analysis.csv"),
            pd.read_csv(folder / "stalls.csv"),
            pd.read_csv(folder / "rules.csv"),
            json.loads((folder / "context.json").read_text()),
            findings=pd.read_csv(folder / "findings.csv"),
        ).build()
    return out


def _findings(folder):
    return pd.read_csv(folder / "findings.csv", keep_default_na=False, na_values=[""])


def _brief_row(report, variant):
    brief = report.split("## 1.")[0]
    header = next(x for x in brief.splitlines() if x.startswith("| variant"))
    (line,) = [x for x in brief.splitlines() if x.startswith(f"| `{variant}`")]
    names = [c.strip() for c in header.split("|")]
    return dict(zip(names, [c.strip() for c in line.split("|")], strict=True))


def _key_size(report):
    """The brief's size (its table's time column: "time n=4096 [us]", "n=2^24")."""
    (n,) = re.findall(r"\| time n=([0-9^]+) \[us\]", report.split("## 1.")[0])
    base, _, power = n.partition("^")
    return int(base) ** int(power) if power else int(base)


def _busiest(row):
    col = max((c for c in UNITS if pd.notna(row.get(c))), key=lambda c: float(row[c]))
    return UNITS[col], float(row[col])


def _step_text(report, variant):
    (head,) = [i for i, x in enumerate(report.splitlines())
               if x.startswith("### 2.") and f"`{variant}`" in x]  # fmt: skip
    return "\n".join(report.splitlines()[head : head + 4])


def test_scan_v3_s_limiter_is_its_longest_launch_s_in_every_place(analysed, reports):
    """The run's row averages its launches' L2 (78%), which none of them ran at."""
    folder = analysed["scan"]
    ctx = json.loads((folder / "context.json").read_text())
    size = 16777216
    launches = ctx["launches"]["v3_smem_transpose"][str(size)]
    assert len(launches) >= 2
    longest = max(launches, key=lambda x: x["row"]["ncu_time_ns"])
    unit, pct = _busiest(longest["row"])
    assert pct >= BOUND_PCT, (unit, pct)
    run = pd.read_csv(folder / "analysis.csv").set_index(["variant", "size"])
    _, run_pct = _busiest(run.loc[("v3_smem_transpose", size)])
    assert f"{run_pct:.0f}" != f"{pct:.0f}"  # the average is not the launch's number
    said = f"{unit} {pct:.0f}%"
    report = reports["scan"]
    cell = _brief_row(report, "v3_smem_transpose")["limits it now"]
    assert said in cell and f"`{longest['kernel']}`" in cell, cell
    step = _step_text(report, "v3_smem_transpose")
    assert f"**Limits it now:** {unit} at {pct:.0f}% of its peak" in step, step
    assert f"`{longest['kernel']}`" in step.split("**Limits it now:**")[1]
    found = _findings(folder)
    (stand,) = found[(found["section"] == "stand") & (found["size"] == size)
                     & (found["variant"] == "v3_smem_transpose")
                     & (found["role"] == "primary")].itertuples()  # fmt: skip
    assert f"What limits it now: {said} (`{longest['kernel']}`)" in stand.message


@pytest.mark.parametrize("family", FAMILIES)
def test_a_multi_launch_run_names_the_launch_its_limiter_is_of(analysed, family):
    folder = analysed[family]
    ctx = json.loads((folder / "context.json").read_text())
    found = _findings(folder)
    limits = found[
        (found["section"] == "stand") & found["rule"].str.startswith("limit_")
    ]
    for r in limits.itertuples():
        runs = (ctx.get("launches") or {}).get(r.variant, {}).get(str(int(r.size)))
        if not runs or len(runs) < 2 or not all("row" in x for x in runs):
            continue
        longest = max(runs, key=lambda x: x["row"]["ncu_time_ns"])
        assert f"`{longest['kernel']}`" in r.message, (r.variant, r.size, r.message)


@pytest.mark.parametrize("family", ["sgemm", "reduction", "scan"])
def test_the_regime_column_is_the_roofline_s_and_the_unit_is_the_limiter(
    analysed, reports, family
):
    """SGEMM v0-v4 and reduction v0/v1: latency by the roofline, L1/shared >= 60%.

    The brief's column says whose regime it is ("roofline regime") and reads
    "under the roofs" for them, a note under the table names them as bound by that
    unit's throughput, not latency, and their stand says a unit off the roofline
    runs near its peak."""
    folder = analysed[family]
    a = pd.read_csv(folder / "analysis.csv")
    key = _key_size(reports[family])
    ctx = json.loads((folder / "context.json").read_text())
    rows = a[(a["size"] == key) & a["profiled"] & (a["regime"] == "latency")].copy()
    # a run of several launches is limited by its longest launch's unit
    kernel, own = {}, []
    for r in rows.to_dict("records"):
        runs = (ctx.get("launches") or {}).get(r["variant"], {}).get(str(key)) or []
        if len(runs) > 1:
            longest = max(runs, key=lambda x: x["row"]["ncu_time_ns"])
            kernel[r["variant"]] = longest["kernel"]
            r = {**r, **{c: longest["row"].get(c) for c in UNITS}}
        own.append(r)
    rows = pd.DataFrame(own)
    bound = rows[rows["l1_throughput_pct"] >= BOUND_PCT]
    if family == "sgemm":
        assert len(bound) >= 4, bound[["variant", "l1_throughput_pct"]]
    if family == "reduction":
        assert {"v0_interleaved", "v1_sequential"} <= set(bound["variant"])
    for r in bound.itertuples():
        cells = _brief_row(reports[family], r.variant)
        assert cells["roofline regime"] == "under the roofs", cells
        unit, pct = _busiest(r._asdict())
        said = f"{unit} {pct:.0f}%"
        if r.variant in kernel:
            said += f" (`{kernel[r.variant]}`)"
        assert unit == "L1/shared" and cells["limits it now"] == said, cells
    if len(bound):
        brief = reports[family].split("## 1.")[0]
        note = next(
            x for x in brief.splitlines() if x.startswith("The roofline regime")
        )
        assert all(f"`{v}`" in note for v in bound["variant"]), note
        # the appendix's roofline regime calls them latency-bound: the note says so
        assert "the roofline alone" in note and "calls them latency-bound" in note
    found = _findings(folder)
    for r in found[found["rule"] == "sweep_regimes"].itertuples():
        # the sweep's regimes are the roofline's at every size, profiled or timed
        assert "L1/shared" not in r.message, r.message
    for r in bound.itertuples():
        (s,) = found[(found["section"] == "stand") & (found["variant"] == r.variant)
                     & (found["size"] == key) & (found["role"] == "primary")
                     ].itertuples()  # fmt: skip
        assert "is under every roof of the roofline" in s.message, s.message
        assert "A unit off the roofline runs at 60% of its peak or more, so its" in (
            s.message
        )
        assert f"What limits it now: L1/shared {r.l1_throughput_pct:.0f}%" in s.message
        assert "bound by L1/shared" not in s.message, s.message


def test_histogram_v1_s_merge_is_not_its_limiter_at_the_slice_the_reader_saw(analysed):
    """v1 merges shared-memory bins: its busiest slice at 44% (another recording)
    was "its atomics' L2 slice", 3x the L2's 14% average; the slice does not limit a
    launch below the line every unit is held to, and its atomics are a sliver."""
    from nsightflow.diagnosis import limiter

    a = pd.read_csv(analysed["histogram"] / "analysis.csv")
    a = a[a["profiled"]].set_index("variant")
    v1 = a.loc["v1_private"].to_dict()
    assert v1["l2_atomic_sectors"] < 0.1 * v1["l2_sectors"]  # 50,688 of 864,000
    seen = {**v1, "l2_slice_max_pct": 44.0}
    assert 44.0 >= 3 * seen["l2_throughput_pct"]  # the old rule's line
    for row in (v1, seen):
        found = limiter.limit(row)
        assert found is not None and found.rule != "limit_l2_slice", found
    # the global-atomic kernels still read their slice, at its own share
    for variant in ("v0_global_atomic", "v3_global_atomic_skewed"):
        row = a.loc[variant].to_dict()
        assert row["l2_slice_max_pct"] >= BOUND_PCT
        found = limiter.limit(row)
        assert found is not None and found.rule == "limit_l2_slice", variant
        assert found.value == pytest.approx(row["l2_slice_max_pct"])
    # at the family's rate, v0's slice (5.93 M sectors in 4,316 us, 1,374 per us):
    # v1's merge, 16,896 on its slice, needs 36% of its 33.7 us, below the 60% line
    from nsightflow.diagnosis.serial import with_rate

    table = pd.read_csv(analysed["histogram"] / "analysis.csv")
    rated = with_rate(table[table["profiled"]]).set_index("variant")
    v1 = rated.loc["v1_private"].to_dict()
    assert v1["slice_rate_by"] == "v0_global_atomic"
    found = limiter.limit(v1)
    assert found is not None and found.rule != "limit_l2_slice", found
    for variant, pct in (("v0_global_atomic", 100), ("v3_global_atomic_skewed", 98)):
        found = limiter.limit(rated.loc[variant].to_dict())
        assert found is not None and found.rule == "limit_l2_slice", variant
        assert round(found.value) == pct


@pytest.mark.parametrize("family", FAMILIES)
def test_near_is_said_with_its_number(analysed, family):
    """Reduction v4 at 76% of the DRAM peak (80% of the copy bandwidth) read
    "near its ceiling"; ncu's "high" is 60%: a word for a number says the number."""
    found = _findings(analysed[family])
    for message in found["message"].dropna():
        assert not re.search(r"near (its|their) ceiling", message), message


def test_reduction_v4_s_bandwidth_cause_says_its_share_of_the_copy_bandwidth(
    analysed, reports
):
    a = pd.read_csv(analysed["reduction"] / "analysis.csv")
    row = a[(a["variant"] == "v4_vec4_atomic") & a["profiled"]].iloc[0]
    assert 80 <= row["pct_of_copy_bw"] and row["dram_throughput_pct"] < 80
    assert "near its ceiling" not in reports["reduction"]
    assert "DRAM bandwidth (80% of the copy bandwidth or more)" in reports["reduction"]


def test_the_energy_ratio_above_one_is_said_for_what_it_is(analysed, reports):
    """energy_busy is the timed median over the stream's time per launch: SGEMM v0 at
    n = 256 reads 1.53, back-to-back launches overlapping; no busy fraction is > 1."""
    a = pd.read_csv(analysed["sgemm"] / "analysis.csv")
    ok = a[(a["status"] == "ok") & a["energy_busy"].notna()]
    top = ok.loc[ok["energy_busy"].idxmax()]
    assert top["energy_busy"] > 1.1
    energy = reports["sgemm"].split("Energy per launch")[-1]
    assert "busy below" not in energy
    assert "is not a busy fraction" in energy
    assert (
        f"up to {top['energy_busy']:.2f} at `{top['variant']}` n = {int(top['size'])}"
        in energy
    )


@pytest.mark.parametrize("family", FAMILIES)
def test_what_next_names_the_largest_cost_the_stand_names(analysed, family):
    """Scan v3's conclusion read "limited by too few bytes in flight" (the combined
    row's), its stand "its largest cost: a later launch of the run" (its launches'),
    its brief "limits it now: L2": a cost is said as a cost, the same one."""
    found = _findings(analysed[family])
    nexts = found[(found["section"] == "conclusion")
                  & found["rule"].isin(["next_remedy", "next_already_done"])]  # fmt: skip
    for r in nexts.itertuples():
        assert "is limited by" not in r.message, r.message
        stand = found[(found["section"] == "stand") & (found["variant"] == r.variant)
                      & (found["size"] == r.size) & (found["role"] == "primary")]  # fmt: skip
        (s,) = stand.itertuples()
        assert r.metric == s.evidence, (r.variant, r.metric, s.evidence)


def test_sgemm_s_l1_limiter_says_which_half_of_the_unit_is_busy(analysed):
    """v0's 73% is global loads through L1 (no shared memory), v2's 99% its
    conflicted shared-memory tile: the unit's own counters say which."""
    a = pd.read_csv(analysed["sgemm"] / "analysis.csv")
    a = a[(a["size"] == 4096) & a["profiled"]].set_index("variant")
    found = _findings(analysed["sgemm"])
    for variant in ("v0_naive", "v2_tiled_transposed"):
        row = a.loc[variant]
        (r,) = found[(found["section"] == "stand") & (found["variant"] == variant)
                     & (found["size"] == 4096) & (found["rule"] == "limit_l1")
                     ].itertuples()  # fmt: skip
        smem = row["smem_throughput_pct"]
        assert f"shared-memory wavefronts take {smem:.0f}%" in r.message, r.message
    assert a.loc["v0_naive", "smem_throughput_pct"] < 1
    assert a.loc["v2_tiled_transposed", "smem_throughput_pct"] > 90


def test_a_one_warp_launch_is_its_grid_not_its_busiest_unit(analysed, reports):
    """CuPy's cupy_copy in v5_cupy_sum: one block, one warp (1.6% occupancy), 44
    warp instructions; ncu reads its L1/shared at 99% of the peak over its few
    active cycles. A launch with fewer warps than its SM's schedulers is its grid."""
    folder = analysed["reduction"]
    ctx = json.loads((folder / "context.json").read_text())
    runs = ctx["launches"]["v5_cupy_sum"]["16777216"]
    (copy,) = [r for r in runs if r["kernel"].startswith("cupy_copy")]
    assert copy["row"]["l1_throughput_pct"] >= 95
    assert copy["row"]["achieved_occupancy_pct"] * 64 / 100 < 4
    step = _step_text(reports["reduction"], "v5_cupy_sum")
    said = step.split("**Limits it now:**")[1]
    kernel = copy["kernel"]
    assert f"`{kernel}` (9%): grid < 1 wave" in said, said
    assert "L1/shared 99%" not in said


def test_sgemm_v7_s_advice_follows_its_limiter_with_its_metric(analysed, reports):
    """v7 at n = 4096 issues at 82% of the issue slots' peak, most of it the FP32
    work itself; its largest removable cost, dispatch stalls (9%), is not what
    limits it: the advice is the issue slots', with their metric."""
    a = pd.read_csv(analysed["sgemm"] / "analysis.csv").set_index(["variant", "size"])
    issue = a.loc[("v7_double_buffer", 4096), "issue_pct"]
    assert issue >= BOUND_PCT
    nxt = reports["sgemm"].split("**What next**")[1].split("## 1.")[0]
    v7 = [x for x in nxt.splitlines() if "in `v7_double_buffer` at n = " in x]
    assert not [x for x in v7 if "**Dispatch stalls**" in x], v7
    (item,) = [x for x in v7 if "**Instruction issue (issue slots busy)**" in x]
    assert "what limits it is issue slots" in item, item
    assert "sm__inst_issued.avg.pct_of_peak_sustained_active" in item
    assert "n = 4096" in item
    (at_key,) = [x for x in reports["sgemm"].splitlines()
                 if x.startswith("- **") and "in `v7_double_buffer` at n = 4096" in x]  # fmt: skip
    assert f"what limits it is issue slots {issue:.0f}% of its peak" in at_key


def test_sgemm_v5_s_local_memory_is_said_with_its_sectors(analysed, reports):
    """v4 -> v5: the part named local-memory traffic is quoted by its own counter,
    v4's local load and store sectors (its spills), which went to 0, not by the
    waits per global request it cost (local loads are no global requests)."""
    a = pd.read_csv(analysed["sgemm"] / "analysis.csv").set_index(["variant", "size"])
    local = a.loc[("v4_regblock1d", 4096), "local_sectors"]
    assert local > 0 and a.loc[("v5_regblock2d", 4096), "local_sectors"] == 0
    step = _step_text(reports["sgemm"], "v5_regblock2d")
    said = re.search(
        r"local-memory traffic( \([^)]*spill[^)]*\))?: local load and store "
        r"sectors(\[\^m\d+\])? "
        r"([\d.,]+) M -> 0 \(",
        step,
    )
    assert said, step
    assert said.group(3) == f"{local / 1e6:,.1f}"
