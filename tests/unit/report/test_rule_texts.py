"""Texts that state a rule or a formula say the one the numbers follow.

- the brief's note on the roofline regime: SGEMM v5 at n = 4096 runs at 58% of the FP32
  peak, under 60% on every unit, and is compute-bound by the 40% clause on its side of
  the ridge: the note must say that 40% on the intensity's side decides it, not that
  it makes a variant latency-bound;
- DRAM traffic against the ideal bytes: a sum reads each element and writes one
  result, so "one read and one write of each element" is false of reduction;
- a wait per request counted over loads and stores: the formula divides by their sum,
  in parentheses.
"""

import json
import re

import pandas as pd
import pytest

from recorded import analysed_families, written_reports

FAMILIES = ("reduction", "sgemm")


@pytest.fixture(scope="module")
def reports(recording, tmp_path_factory):
    folders = analysed_families(recording, FAMILIES, tmp_path_factory)
    return folders, written_reports(folders, tmp_path_factory, recording)


def test_the_regime_note_says_the_rule_that_made_a_variant_compute_bound(reports):
    folders, md = reports
    a = pd.read_csv(folders["sgemm"] / "analysis.csv")
    under = a[(a["regime"] == "compute") & (a["flops_pct"] < 60)]
    assert not under.empty  # v5 at n = 4096 (57.9%) and cuBLAS at 1024
    note = next(x for x in md["sgemm"].splitlines() if "roofline regime places" in x)
    clause = note[note.index("(") : note.index(")")]
    # 40% on the side the intensity is on makes it memory- or compute-bound
    assert re.search(r"compute-bound at 60% .* or at 40% or more on the side", clause)
    assert "2x" in clause and "latency-bound otherwise" in clause


def test_dram_traffic_is_read_against_the_ideal_bytes_not_a_copy_of_each_element(
    reports,
):
    _, md = reports
    assert "one read and one write of each element" not in md["reduction"]
    line = next(x for x in md["reduction"].splitlines() if "x the ideal (" in x)
    assert "ideal traffic, the bytes the manifest counts" in line


def test_a_wait_per_load_and_store_request_divides_by_their_sum(reports):
    _, md = reports
    formulas = re.findall(r"smsp__inst_executed\.sum / [^`]*", md["sgemm"])
    summed = [f for f in formulas if "_op_ld.sum" in f and "_op_st.sum" in f]
    assert summed
    for f in summed:
        assert f.startswith("smsp__inst_executed.sum / (") and f.rstrip().endswith(
            ")"
        ), f


def test_the_untimed_memset_is_said_of_the_timing_loop_not_a_sweep(reports):
    # reduction has no parameter sweep: its timing loop zeroes S once before the launches
    folders, md = reports
    assert not (folders["reduction"] / "sweep_summary.csv").is_file()
    line = next(x for x in md["reduction"].splitlines() if "**Not timed:**" in x)
    assert "the timing loop zeroes it once" in line and "the sweep" not in line


def test_an_expected_mechanism_is_said_to_cost_less_not_to_shrink(reports):
    # reduction v1 -> v2: achieved occupancy rose, and its occupancy factor cost less;
    # "occupancy ... shrank" read as the occupancy falling
    folders, md = reports
    a = pd.read_csv(folders["reduction"] / "analysis.csv").set_index(
        ["variant", "size"]
    )
    occ = a["achieved_occupancy_pct"]
    assert occ[("v2_shuffle", 2**24)] > occ[("v1_sequential", 2**24)]
    lines = [x for x in md["reduction"].splitlines() if "As expected:" in x]
    assert lines and not any("shrank" in x for x in lines)
    assert any("occupancy" in x and "cost less" in x for x in lines)


EXPECTED_LINE = re.compile(
    r"\*\*Expected\*\* to shrink: (?P<expected>[^*]+)\. \*\*Observed:\*\* "
    r"(?P<rest>[^*]+?)(?: \*\*|$)"
)


def test_as_expected_accounts_for_every_mechanism_the_line_expected(reports):
    # SGEMM v6 read "Expected to shrink: bank conflicts, wider loads, instruction
    # count. Observed: bank conflicts. As expected." while neither of the other two
    # was a part of its step: "As expected" must not stand for expectations the
    # account does not hold
    _, md = reports
    checked = 0
    for family, text in md.items():
        for m in EXPECTED_LINE.finditer(text):
            rest = m["rest"]
            if "As expected" not in rest:
                continue
            for name in m["expected"].split(", "):
                assert name in rest, (family, name, rest)
            checked += 1
    assert checked >= 4
    v6 = next(x for x in md["sgemm"].split("### ") if x.startswith("2.6 "))
    said = v6[v6.index("**Observed:**") :]
    assert re.search(
        r"As expected; wider loads \(which the step did: [^)]*\), "
        r"instruction count: not among the step.s parts",
        said,
    ), said


def test_more_dram_bytes_come_with_the_l2_hit_rate_that_explains_them(reports):
    # SGEMM's 32x32 tiles doubled the DRAM bytes (4,333 -> 8,463 MB): the loads into
    # shared memory miss L2 more often than v0's repeated row reads
    folders, md = reports
    a = pd.read_csv(folders["sgemm"] / "analysis.csv").set_index(["variant", "size"])
    x, y = (a.loc[(v, 4096), "l2_hit_pct"] for v in ("v0_naive", "v1_tiled32"))
    assert x - y > 10
    v1 = next(s for s in md["sgemm"].split("### ") if s.startswith("2.1 "))
    dram = next(line for line in v1.split("**") if "MB (" in line)
    assert f"the L2 hit rate {x:.0f}% -> {y:.0f}%" in dram


def test_a_share_of_the_vendor_library_says_the_library_s_share_of_the_peak(
    reports, recording
):
    # "94% of cuBLAS SGEMM" alone reads as 94% of the GPU: cuBLAS runs at 81% of the
    # FP32 peak measured with the run
    folders, md = reports
    peak = json.loads((recording / "ceilings.json").read_text())["fp32_gflops"]
    a = pd.read_csv(folders["sgemm"] / "analysis.csv").set_index(["variant", "size"])
    cublas = a.loc[("v8_torch_matmul", 4096), "gflops"] / peak
    result = next(x for x in md["sgemm"].splitlines() if x.startswith("**Result"))
    assert (
        f"cuBLAS SGEMM itself runs at {100 * cublas:.0f}% of the measured FP32"
        in result
    )


def test_local_memory_is_said_with_the_compiler_s_spills(reports, recording):
    # SGEMM v4 -> v5: local sectors 134.7 M -> 0 come from 4 bytes ptxas spilled in v4
    _, md = reports
    spills = [
        json.loads((recording / f"build/sgemm/{v}.resources.json").read_text())[
            "resources"
        ]["spill_store_bytes"]
        for v in ("v4_regblock1d", "v5_regblock2d")
    ]
    assert spills[0] > 0 and spills[1] == 0
    v5 = next(s for s in md["sgemm"].split("### ") if s.startswith("2.5 "))
    assert f"spill stores per thread {spills[0]} -> 0 bytes" in v5


def test_a_primary_part_under_half_the_change_says_its_share_in_the_brief(reports):
    # SGEMM v6: bank conflicts are 165 of the 553 us saved; the brief's "this step
    # changed" cell read "bank conflicts" as if they were the step
    _, md = reports
    v6 = next(s for s in md["sgemm"].split("### ") if s.startswith("2.6 "))
    why = re.search(r"\*\*Why:\*\*.*?\(([\d,.]+) of the ([\d,.]+) us saved\)", v6)
    part, whole = (float(x.replace(",", "")) for x in why.groups())
    assert part / whole < 0.5
    row = next(x for x in md["sgemm"].splitlines() if x.startswith("| `v6_vectorized`"))
    assert f"bank conflicts ({100 * part / whole:.0f}% of the change)" in row


def test_the_mio_queue_of_few_shared_loads_does_not_say_none_were_measured(reports):
    # SGEMM v7 executes ~100 M shared loads (0.04 per instruction): its stall list
    # read "MIO queue (no shared memory, shuffles or special functions measured)"
    folders, md = reports
    a = pd.read_csv(folders["sgemm"] / "analysis.csv").set_index(["variant", "size"])
    assert a.loc[("v7_double_buffer", 4096), "shared_ld_inst"] > 1e7
    assert "no shared memory, shuffles or special functions measured" not in md["sgemm"]
    assert "MIO queue (few shared-memory instructions, no shuffles" in md["sgemm"]


def test_no_sentence_writes_a_power_of_two_size_in_full(reports):
    # reduction's appendix read "at n = 16777216" where the brief said "n = 2^24"
    _, md = reports
    for family, text in md.items():
        assert not re.search(r"n = (16777216|4194304|1048576|65536)\b", text), family


def test_no_advice_hides_shared_memory_waits_the_kernel_does_not_have(reports):
    # SGEMM v7's short_scoreboard + mio_throttle are 0.16 cycles per instruction:
    # "the next k slice's fragments read from shared memory during the FMAs" had
    # nothing to hide
    folders, md = reports
    s = pd.read_csv(folders["sgemm"] / "stalls.csv")
    v7 = s[(s["variant"] == "v7_double_buffer") & (s["size"] == 4096)]
    waits = v7[v7["reason"].isin(["short_scoreboard", "mio_throttle"])]["cycles"].sum()
    assert waits < 0.5
    brief = md["sgemm"].split("## 1.")[0]
    assert "the next k slice's fragments" not in brief
    assert f"{waits:.2f} cycles per instruction of shared-memory waits" in brief
