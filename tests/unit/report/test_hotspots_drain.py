# ruff: noqa: RUF001  (Chinese report text uses full-width punctuation)
"""Drain at the exit counted to the store lines, and the line a primary finding cites."""

import json
from pathlib import Path

import pandas as pd
import pytest

from nsightflow import i18n
from nsightflow.analysis.analyze import AnalysisInputs, write_analysis
from nsightflow.analysis.hotspots import (
    attribute_drain,
    hottest_line,
    line_table,
)
from nsightflow.diagnosis.build import write_findings
from nsightflow.diagnosis.lines import LINE_MAJORITY, cited_line, with_line
from nsightflow.diagnosis.record import Finding, msg, render, render_row
from nsightflow.tools.ncu_parse import parse_files, write_table
from nsightflow.tools.ncu_source import read_source_samples
from nsightflow.tools.profile_layout import parts_of_folder
from nsightflow.tools.sass import function_kinds, kinds, opcode

ROOT = Path(__file__).resolve().parents[3]
TRANSPOSE = ROOT / "tests/data/h200_transpose"  # measured on the H200 (its README)
FAMILY = ROOT / "tests/data/diagnosis_families/transpose"


# --- what an instruction accesses ------------------------------------------------------


def test_opcodes_name_their_memory_kinds():
    assert opcode("@!P0 STG.E desc[UR6][R4.64], R7") == "STG"
    assert opcode("@!UP1 LDS.U R1, [R2]") == "LDS"
    assert opcode("@PT EXIT") == "EXIT"
    assert kinds("@!P0 STG.E desc[UR6][R4.64], R7") == ("global_store",)
    assert kinds("LDG.E.CONSTANT R7, desc[UR6][R6.64]") == ("global_load",)
    assert kinds("RED.E.ADD.F32.FTZ.RN.STRONG.GPU desc[UR4][R2.64], R5") == (
        "global_atomic",
    )
    assert kinds("LDGSTS.E.BYPASS.128 [R3], desc[UR4][R4.64]") == (
        "global_load",
        "shared_store",
    )
    assert kinds("REDG.E.ADD.STRONG.GPU desc[UR6][R2.64], R5") == ("global_atomic",)
    assert kinds("ATOMS.ADD RZ, [R2], R3") == ("shared_atomic",)
    assert kinds("STS [R10], R7") == ("shared_store",)
    assert kinds("STL [R1], R2") == ("local",)
    assert kinds("BAR.SYNC.DEFER_BLOCKING 0x0") == ("barrier",)
    assert kinds("FFMA R1, R2, R3, R4") == () and kinds("") == ()
    # the store-like names that are not global stores
    assert kinds("STSM.16.M88 [R1], R2") == ()


def test_the_instruction_after_an_exit_is_the_exit_path_too():
    sass = ["@P0 EXIT", "SHF.R R1", "STG.E [R2], R3", "EXIT", "BRA `(.L_x_0)", "NOP"]
    assert function_kinds(sass) == [
        ("exit",),
        ("exit",),  # where a warp that took the predicated EXIT is sampled
        ("global_store",),
        ("exit",),
        ("exit",),
        (),
    ]
    # an instruction with its own kinds keeps them
    assert function_kinds(["@!P0 EXIT", "STG.E [R2], R11"]) == [
        ("exit",),
        ("global_store", "exit"),
    ]


# --- drain at the exit counted to the stores -----------------------------------------


def _launch(rows, **labels):
    base = {"family": "f", "variant": "v0", "size": 64, "launch": 0, "kernel": "k"}
    return pd.DataFrame(
        [
            {
                **base,
                **labels,
                "pc": pc,
                "sass": sass,
                "file": "k.cu",
                "line": line,
                "source": "",
                "access": access,
                "reason": reason,
                "samples": count,
            }
            for pc, sass, line, access, reason, count in rows
        ]
    )


STORES = [
    # pc, sass, line, access, reason, samples
    (0x10, "LDG.E R1", 5, "global_load", "long_scoreboard", 40),
    (0x20, "STG.E [R2], R1", 5, "global_store", "", 0),
    (0x30, "STG.E [R4], R1", 5, "global_store", "lg_throttle", 5),
    (0x40, "RED.E.ADD [R6], R1", 7, "global_atomic", "", 0),
    (0x50, "EXIT", 9, "exit", "selected", 2),
    (0x60, "BRA `(.L_x_0)", 9, "exit", "drain", 31),
    (0x60, "BRA `(.L_x_0)", 9, "exit", "branch_resolving", 4),
    (0x70, "IADD3 R1", 8, "", "drain", 3),  # drain off the exit path stays
]


def test_exit_drain_moves_to_store_lines_by_their_store_count():
    lines = line_table(_launch(STORES)).set_index("line")
    # 31 drain samples: two stores on line 5, one reduction on line 7 -> 21 / 10
    assert (
        lines.loc[5, "attributed_drain"] == 21
        and lines.loc[7, "attributed_drain"] == 10
    )
    assert lines.loc[5, "samples"] == 40 + 5 + 21
    assert lines.loc[5, "samples_drain"] == 21 and lines.loc[7, "samples"] == 10
    assert lines.loc[7, "top_reason"] == "drain"
    assert (lines.loc[[5, 7], "drain_from_line"] == 9).all()
    # the exit keeps what is not drain; drain elsewhere is not moved
    assert lines.loc[9, "samples"] == 2 + 4 and lines.loc[9, "samples_drain"] == 0
    assert lines.loc[8, "samples_drain"] == 3 and lines.loc[8, "attributed_drain"] == 0
    assert lines["samples"].sum() == 40 + 5 + 2 + 31 + 4 + 3  # nothing lost or made
    assert lines["share"].sum() == pytest.approx(1.0)
    assert lines.loc[5, "access"] == "global_load;global_store"
    assert lines.loc[9, "access"] == "exit" and lines.loc[8, "access"] == ""


def test_each_exit_drain_goes_to_the_stores_on_the_way_to_it():
    # Jacobi v0's layout: the interior's store (line 18), its predicated EXIT, then
    # the boundary copy's store (line 15, sampled in drain for the warps that left
    # at the EXIT before it), its EXIT and the trailing branch
    rows = [
        (0x10, "LDG.E R1", 18, "global_load", "long_scoreboard", 90),
        (0x20, "@!P0 STG.E [R2], R5", 18, "global_store", "selected", 2),
        (0x30, "@!P0 EXIT", 19, "exit", "selected", 4),
        (0x40, "STG.E [R2], R11", 15, "global_store;exit", "drain", 743),
        (0x40, "STG.E [R2], R11", 15, "global_store;exit", "misc", 5),
        (0x50, "EXIT", 15, "exit", "", 0),
        (0x60, "BRA `(.L_x_0)", 15, "exit", "drain", 6),
    ]
    lines = line_table(_launch(rows)).set_index("line")
    assert lines.loc[18, "attributed_drain"] == 743
    assert lines.loc[18, "drain_from_line"] == 19  # the line of their EXIT
    assert lines.loc[15, "attributed_drain"] == 6 and lines.loc[15, "samples"] == 11
    assert lines["samples"].sum() == 90 + 2 + 4 + 743 + 5 + 6


def test_split_samples_are_whole_and_sum_to_the_drain():
    rows = [
        (0x10 * k, "STG.E [R2], R1", k, "global_store", "", 0) for k in (1, 2, 3)
    ] + [(0x90, "BRA `(.L_x_0)", 9, "exit", "drain", 10)]
    lines = line_table(_launch(rows)).set_index("line")
    assert sorted(lines.loc[[1, 2, 3], "samples"]) == [3, 3, 4]
    assert 9 not in lines.index  # all of its samples moved


def test_a_launch_without_global_stores_keeps_its_samples():
    rows = [r for r in STORES if "global_store" not in r[3] and "atomic" not in r[3]]
    lines = line_table(_launch(rows)).set_index("line")
    assert lines.loc[9, "samples_drain"] == 31 and lines["attributed_drain"].sum() == 0
    # nor does a launch move samples to another launch's stores
    two = pd.concat(
        [
            _launch(rows),
            _launch([r for r in STORES if r[3] == "global_store"], launch=1),
        ]
    )
    table = line_table(two)
    assert table["attributed_drain"].sum() == 0


def test_tables_parsed_before_the_access_column_are_left_as_they_are():
    old = _launch(STORES).drop(columns="access")
    old = old[old["samples"] > 0]
    assert attribute_drain(old)["attributed"].sum() == 0
    lines = line_table(old).set_index("line")
    assert lines.loc[9, "samples_drain"] == 31 and (lines["access"] == "").all()
    pd.testing.assert_frame_equal(
        old, _launch(STORES).drop(columns="access")[lambda f: f["samples"] > 0]
    )  # the input is not changed


# --- the recorded transpose (H200) -----------------------------------------------------


@pytest.fixture(scope="module")
def transpose_lines() -> pd.DataFrame:
    frames = [
        read_source_samples(TRANSPOSE / f"profile/transpose/{v}/n8192.ncu-rep")[0]
        for v in ("v0_naive", "v1_tiled", "v2_padded")
    ]
    return line_table(pd.concat(frames, ignore_index=True))


def test_recorded_transpose_v0_hottest_line_is_the_strided_store(transpose_lines):
    top = hottest_line(transpose_lines, "v0_naive", 8192)
    code = (FAMILY / "v0_naive.cu").read_text().splitlines()
    assert top is not None and top.line == 10
    assert "B[(size_t)x * n + y] =" in code[top.line - 1]  # the store strided by n
    assert "global_store" in top.access and top.reason == "drain"
    # half of the launch's samples were drain on the closing brace (line 12)
    assert top.drain_from_line == 12 and code[11].strip() == "}"
    assert top.attributed_drain == pytest.approx(0.50, abs=0.01)
    brace = transpose_lines.query("variant == 'v0_naive' and line == 12")
    assert brace["samples_drain"].sum() == 0 and brace["share"].sum() < 0.01
    assert top.share > 0.8


def test_recorded_transpose_shares_sum_to_one_and_lines_exist(transpose_lines):
    shares = transpose_lines.groupby(["variant", "size", "launch"])["share"].sum()
    assert len(shares) == 3 and shares.between(0.999, 1.001).all()
    for variant, rows in transpose_lines.groupby("variant"):
        own = rows[rows["file"].str.endswith(f"{variant}.cu")]
        length = len((FAMILY / f"{variant}.cu").read_text().splitlines())
        assert own["line"].between(1, length).all(), variant
    # the tiled variants: the store line is the tile's column read and the store
    v1 = hottest_line(transpose_lines, "v1_tiled", 8192)
    assert (
        v1 is not None
        and v1.line == 21
        and v1.access >= {"shared_load", "global_store"}
    )
    v2 = hottest_line(transpose_lines, "v2_padded", 8192)
    assert v2 is not None and v2.line == 15 and v2.attributed_drain == 0


# --- the line a finding cites ----------------------------------------------------------


STORE = ("lg_throttle", "drain")  # the stalls of a store finding
MIX = {"drain": 0.6, "lg_throttle": 0.1, "short_scoreboard": 0.3}


def _hot(
    share: float, access: str, drained: int = 0, mix: dict[str, float] = MIX
) -> pd.DataFrame:
    """Two lines of one launch; line 10 holds ``share`` of 1,000 samples, by ``mix``."""
    top = round(1000 * share)
    rows = []
    for line, count, kinds_ in ((10, top, access), (11, 1000 - top, "global_load")):
        parts = mix if line == 10 else {"long_scoreboard": 1.0}
        reason = max(parts, key=lambda r: parts[r])
        rows.append(
            {
                "family": "f",
                "variant": "v0",
                "size": 64,
                "launch": 0,
                "kernel": "k",
                "file": "k.cu",
                "line": line,
                "source": f"code_{line} | `x`",
                "samples": count,
                "share": count / 1000,
                "top_reason": reason,
                "top_reason_share": parts[reason],
                "access": kinds_,
                "attributed_drain": drained if line == 10 else 0,
                "drain_from_line": 12 if drained and line == 10 else 0,
                **{f"samples_{r}": count * x for r, x in parts.items()},
            }
        )
    return pd.DataFrame(rows).fillna(0)


def test_a_store_finding_cites_a_store_line_holding_the_majority():
    hot = _hot(0.71, "global_load;global_store", drained=400)
    found = cited_line(hot, "uncoalesced_stores", "v0", 64, STORE)
    assert found is not None and found[0].line == 10 and found[1] == ("global_store",)
    assert cited_line(hot, "store_drain", "v0", 64, ("drain",)) is not None
    # just under the majority, another size, or no samples: nothing cited
    under = _hot(LINE_MAJORITY - 0.01, "global_store")
    assert cited_line(under, "uncoalesced_stores", "v0", 64, STORE) is None
    assert cited_line(hot, "uncoalesced_stores", "v0", 128, STORE) is None
    assert cited_line(None, "uncoalesced_stores", "v0", 64, STORE) is None
    assert cited_line(hot, "uncoalesced_stores", "v0", 64, ()) is None  # no stalls


def test_a_finding_never_cites_a_line_without_its_access():
    stores_only = _hot(
        0.9, "global_store", mix={"long_scoreboard": 0.5, "mio_throttle": 0.5}
    )
    assert (
        cited_line(stores_only, "memory_latency", "v0", 64, ("long_scoreboard",))
        is None
    )
    assert (
        cited_line(stores_only, "bank_conflicts", "v0", 64, ("mio_throttle",)) is None
    )
    assert cited_line(stores_only, "issue_bound", "v0", 64, ("selected",)) is None
    assert cited_line(stores_only, "occupancy", "v0", 64, ("long_scoreboard",)) is None
    shared = _hot(0.8, "global_store;shared_load")
    found = cited_line(shared, "bank_conflicts", "v0", 64, ("short_scoreboard",))
    assert found is not None and found[1] == ("shared_load",)
    both = with_line(
        Finding(
            "bytes_in_flight",
            params=msg("mech_bytes_in_flight"),
            evidence="long_scoreboard",
        ),
        _hot(0.8, "global_load;global_store", mix={"long_scoreboard": 1.0}),
        "v0",
        64,
    )
    with i18n.language("en"):
        text = render(both.rule, both.params)
    assert "its global load and global store, holds 80%" in text
    assert "100% in this cause's stalls (`long_scoreboard`)" in text


def test_a_line_waiting_on_other_stalls_is_not_cited():
    # the load/store queue (lg_throttle) on a store line whose warps wait on the
    # data of its loads (long_scoreboard): the line is not what the finding names
    waits = _hot(
        0.62, "global_store", mix={"long_scoreboard": 0.98, "lg_throttle": 0.02}
    )
    assert cited_line(waits, "lsu_queue", "v0", 64, ("lg_throttle",)) is None
    queued = _hot(
        0.62, "global_store", mix={"long_scoreboard": 0.7, "lg_throttle": 0.3}
    )
    assert cited_line(queued, "lsu_queue", "v0", 64, ("lg_throttle",)) is not None


def test_exit_drain_does_not_make_a_majority_for_other_findings():
    # 55% of the samples, 10% of them the exit's drain: 45% without it
    hot = _hot(0.55, "global_store;shared_load", drained=100)
    assert cited_line(hot, "bank_conflicts", "v0", 64, ("short_scoreboard",)) is None
    assert cited_line(hot, "uncoalesced_stores", "v0", 64, STORE) is not None


def test_the_cited_line_is_in_the_record_and_the_sentence_in_both_languages():
    head = Finding(
        "uncoalesced_stores",
        params=msg("mech_uncoalesced_stores"),
        evidence="lg_throttle, drain",
    )
    cited = with_line(head, _hot(0.71, "global_store", drained=500), "v0", 64)
    assert (cited.line, cited.line_share) == (10, pytest.approx(0.71))
    with i18n.language("en"):
        text = render(cited.rule, cited.params)
    assert text.startswith("Uncoalesced global stores **Where:** line 10 of `v0`")
    assert "its global store, holds 71%" in text and ">= 50% of the samples" in text
    assert "60% of them `drain` and 70% in this cause's stalls" in text
    assert "(`lg_throttle` + `drain`)" in text and ">= 25% in its stalls" in text
    assert "; 50% of the launch's samples are `drain` after the kernel's `EXIT`" in text
    assert "(line 12)" in text
    assert "`` code_10 | `x` ``" in text  # kernel text as a code span
    with i18n.language("zh"):
        zh = render(cited.rule, cited.params)
    assert "第 10 行" in zh and "全局存储" in zh and "第 12 行" in zh
    # under 1% of the launch moved from the exit: no clause about it
    few = with_line(head, _hot(0.71, "global_store", drained=5), "v0", 64)
    with i18n.language("en"):
        assert "exit" not in render(few.rule, few.params)
    # a line without the finding's access: the finding as it was
    same = with_line(head, _hot(0.71, "global_load"), "v0", 64)
    assert same == head


# --- end to end: parse -> analyze on the recorded transpose ----------------------------


@pytest.fixture(scope="module")
def transpose_analysis(tmp_path_factory) -> Path:
    from nsightflow.tools.ncu_source import parse_source_files

    tmp = tmp_path_factory.mktemp("transpose")
    variants = ("v0_naive", "v1_tiled", "v2_padded")
    metrics, rules, source = [], [], []
    for v in variants:
        folder = TRANSPOSE / f"profile/transpose/{v}"
        m, r = parse_files([folder])
        s, _ = parse_source_files([folder])
        for frame, suffix, paths in (
            (m, ".csv", metrics),
            (r, ".rules.csv", rules),
            (s, ".source.csv", source),
        ):
            write_table(frame, tmp / f"{v}{suffix}")
            paths.append(tmp / f"{v}{suffix}")
    inputs = AnalysisInputs(
        FAMILY,
        [TRANSPOSE / f"build/transpose/{v}.resources.json" for v in variants],
        [TRANSPOSE / f"verify/transpose/{v}.json" for v in variants],
        [TRANSPOSE / f"time/transpose/{v}.json" for v in variants],
        metrics,
        rules,
        [TRANSPOSE / f"profile/transpose/{v}" for v in variants],
        TRANSPOSE / "ceilings.json",
        source=source,
    )
    out = tmp / "analysis"
    write_analysis(inputs, out)
    write_findings(out)
    return out


def test_transpose_baseline_finding_names_the_store_line(transpose_analysis):
    found = pd.read_csv(transpose_analysis / "findings.csv")
    primary = found[
        (found["role"] == "primary") & found["section"].isin(["baseline", "step"])
    ]
    by = {(r.section, r.variant): r for r in primary.itertuples()}
    base = by[("baseline", "v0_naive")]
    assert base.rule == "uncoalesced_stores" and base.line == 10
    assert base.line_share == pytest.approx(0.844, abs=0.01)
    assert "**Where:** line 10 of `v0_naive`" in base.message
    # the step that fixes the stores cites the line it fixed, in the variant before
    step = by[("step", "v1_tiled")]
    assert step.rule == "uncoalesced_stores" and step.line == 10
    assert "line 10 of `v0_naive`" in step.message
    # the padding step's bank conflicts: line 21 of v1 holds 50.5% only with the
    # exit's drain (44% without): no line
    pad = by[("step", "v2_padded")]
    assert (
        pad.rule == "bank_conflicts"
        and pd.isna(pad.line)
        and "Where" not in pad.message
    )
    # only primary findings cite a line
    assert found[found["role"] != "primary"]["line"].isna().all()
    with i18n.language("zh"):
        zh = render_row(found.loc[found["message"] == base.message].iloc[0])
    assert "`v0_naive` 的第 10 行" in zh
    hot = pd.read_csv(transpose_analysis / "hotspots.csv")
    assert (
        json.loads(found.loc[found["message"] == base.message, "params"].iloc[0])["@"]
        == "with_line"
    )
    assert hottest_line(hot, "v0_naive", 8192).line == 10


def test_transpose_report_notes_the_drain_and_cites_the_line(
    transpose_analysis, tmp_path
):
    from nsightflow.report.build import write_report
    from nsightflow.report.paths import report_stem

    texts = {}
    for lang in ("en", "zh"):
        out = tmp_path / lang
        write_report(transpose_analysis, tmp_path / "figures", out, language=lang)
        texts[lang] = (out / f"{report_stem(lang)}.md").read_text()
    en = texts["en"]
    start = en.index("under Nsight Compute")  # the appendix's part on the baseline
    baseline = en[start : en.index("### A.", start)]
    assert "In `v0_naive`, 50.1% of the launch's samples are `drain` after" in baseline
    assert "`EXIT` (line 12)" in baseline and "(line 10;" in baseline
    first = next(r for r in baseline.splitlines() if r.startswith("|   1 |"))
    assert "|     10 |" in first and "84.4%" in first and "drain 59%" in first
    assert "**Where:** line 10 of `v0_naive`" in baseline
    # v2_padded: 0.07% moved from its exit, under the 1% worth a note
    assert "In `v2_padded`," not in en
    # the body's bound names the baseline's cause and the line it sits on
    bound = en[en.index("## 1. Bound") : en.index("## 2.")]
    assert "at line 10 of `v0_naive`" in bound
    zh = texts["zh"]
    assert "`v0_naive` 中，该次启动 50.1% 的采样是 kernel 执行 `EXIT`（第 12 行）" in zh
    assert "**位置：**`v0_naive` 的第 10 行" in zh


def test_recorded_jacobi_exit_drain_goes_to_the_interior_store(recording):
    # the bundled recording's Jacobi v0: the interior's warps leave at a predicated
    # EXIT (line 19) and are sampled in drain on the boundary copy's STG after it
    # (line 15); they wait for the interior's store (line 18), not the boundary's
    # v0's part of the family's one shared report, as its profile.json names it
    (part,) = parts_of_folder(recording / "profile/jacobi2d/v0_naive")
    frame, _ = read_source_samples(part)
    # in the report at 8192: 675 drain samples on line 15's STG (the boundary copy's
    # store, on the exit path), 7 on the BRA after it, of line 15's 440 samples
    raw = frame.query("size == 8192 and reason == 'drain'")
    store = raw[raw["sass"].str.startswith("STG")]
    assert list(store["line"]) == [15] and list(store["samples"]) == [675]
    assert raw["samples"].sum() == 675 + 7
    lines = line_table(frame).query("size == 8192").set_index("line")
    assert lines.loc[18, "attributed_drain"] == 675
    assert lines.loc[15, "attributed_drain"] == 7
    assert lines.loc[15, "samples_drain"] == 7  # of its 440 samples
    assert lines.loc[15, "samples"] == 440
    assert lines.loc[15, "top_reason"] != "drain"
