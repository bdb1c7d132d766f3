"""Warp samples per source line: parse, aggregate, and show them in the report."""

import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from nsightflow import i18n
from nsightflow.analysis.hotspots import (
    REASONS,
    build_hotspots,
    hottest_line,
    line_table,
    locate,
    read_hotspot_inputs,
    write_hotspots,
)
from nsightflow.contracts import SOURCE
from nsightflow.report.build import write_report
from nsightflow.report.paths import report_stem
from nsightflow.report.sections.hotspots import code_cell
from nsightflow.tools import ncu_metrics as M
from nsightflow.tools.ncu import NcuSettings, ncu_argv
from nsightflow.tools.ncu_source import (
    NO_SAMPLES,
    action_rows,
    parse_source_files,
    read_source_samples,
    sample_reason,
)
from recorded import analyze as _analyze

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ROOT / "kernels"
# variant folders: each one's part of its family's shared report (2 launches, 2 sizes)
JACOBI_V0 = "profile/jacobi2d/v0_naive"
SGEMM_V2 = "profile/sgemm/v2_tiled_transposed"


# --- collection ----------------------------------------------------------------------


def test_lean_set_samples_warps_per_instruction_and_embeds_the_sources():
    argv = ncu_argv(NcuSettings(), "k", Path("r.ncu-rep"), ["t"])
    wanted = argv[argv.index("--metrics") + 1].split(",")
    assert "group:smsp__pcsamp_warp_stall_reasons" in wanted
    assert M.PCSAMP_SAMPLES in wanted
    assert not any(w.endswith("_not_issued") for w in wanted)
    assert argv[argv.index("--import-source") + 1] == "yes"
    # no section that patches SASS for per-instruction counters
    assert "SourceCounters" not in argv
    full = ncu_argv(NcuSettings(set="full"), "k", Path("r"), ["t"])
    assert full[full.index("--import-source") + 1] == "yes"


def test_sample_metrics_name_their_reason():
    prefix = "smsp__pcsamp_warps_issue_stalled_"
    assert sample_reason(prefix + "long_scoreboard") == "long_scoreboard"
    assert sample_reason(prefix + "no_instructions") == "no_instruction"
    assert sample_reason(prefix + "selected") == "selected"
    assert sample_reason(prefix + "long_scoreboard_not_issued") is None
    assert sample_reason("smsp__pcsamp_sample_count") is None
    assert sample_reason(M.stall_metric("long_scoreboard")) is None


# --- parsing real reports ------------------------------------------------------------


# A report profiled before warp sampling joined the lean set.
UNSAMPLED = ROOT / "tests/data/ncu/h200/v1_smem_n2048.ncu-rep"


def test_a_report_without_samples_says_so():
    frame, note = read_source_samples(UNSAMPLED)
    assert frame.empty and list(frame.columns) == list(SOURCE.columns)
    assert note == f"{UNSAMPLED}: {NO_SAMPLES}"


def test_parse_writes_the_per_instruction_table_and_warns(tmp_path):
    folder = UNSAMPLED
    out = tmp_path / "v0.source.csv"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "nsightflow",
            "parse",
            str(folder),
            "-o",
            str(tmp_path / "v0.csv"),
            "--source",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "WARNING:" in proc.stderr and "no per-instruction samples" in proc.stderr
    assert pd.read_csv(out).columns.tolist() == list(SOURCE.columns)


class _Ids:
    def __init__(self, pcs):
        self.pcs = pcs

    def as_uint64(self, i):
        return self.pcs[i]


class _Samples:
    """A per-PC sample metric as ncu_report gives it: instances with PCs as ids."""

    def __init__(self, by_pc):
        self.pcs, self.counts = list(by_pc), list(by_pc.values())

    def has_correlation_ids(self):
        return True

    def correlation_ids(self):
        return _Ids(self.pcs)

    def num_instances(self):
        return len(self.counts)

    def as_uint64(self, i):
        return self.counts[i]


class _Sampled:
    """A recorded launch with per-PC samples added; SASS and lines are the report's."""

    def __init__(self, action, samples):
        self.action, self.samples = action, samples

    def metric_names(self):  # the report's own samples (if any) replaced by these
        own = (n for n in self.action.metric_names() if "pcsamp" not in n)
        return (*own, *self.samples)

    def metric_by_name(self, name):
        if name in self.samples:
            return _Samples(self.samples[name])
        return self.action.metric_by_name(name)

    def __getattr__(self, name):
        return getattr(self.action, name)


def _first_launch(folder, tmp_path):
    """The variant's first launch in the report its profile.json names."""
    from profiles import actions_of, runs

    first = runs(folder, tmp_path)[0]
    return actions_of(first.path, tmp_path)[first.actions[0]]


def test_samples_map_to_sass_and_lines_through_the_report(recording, tmp_path):
    # Jacobi v0's recorded SASS: LDG at +0x1e0 and FADD at +0x280 (line 18), the
    # boundary copy's STG at +0x300 (line 15); the samples here are made up.
    action = _first_launch(recording / JACOBI_V0, tmp_path)
    start = action.metric_by_name("launch__function_pcs").as_uint64(0)
    prefix = "smsp__pcsamp_warps_issue_stalled_"
    sampled = _Sampled(
        action,
        {
            prefix + "long_scoreboard": {start + 0x280: 70, start + 0x1E0: 5},
            prefix + "selected": {start + 0x280: 3, start + 0x300: 2},
            prefix + "long_scoreboard_not_issued": {start + 0x280: 60},
            prefix + "no_instructions": {start + 0x300: 0},
        },
    )
    rows = pd.DataFrame(action_rows(sampled))
    assert rows["samples"].sum() == 80  # not-issued twins and zeros not counted
    by_pc = rows.groupby("pc").agg(
        sass=("sass", "first"), line=("line", "first"), samples=("samples", "sum")
    )
    assert by_pc.loc[0x280].tolist() == [by_pc.loc[0x280, "sass"], 18, 73]
    assert by_pc.loc[0x280, "sass"].startswith("@!P0 FADD")
    assert by_pc.loc[0x1E0, "sass"].startswith("LDG.E.CONSTANT")
    assert by_pc.loc[0x1E0, "line"] == 18 and by_pc.loc[0x300, "line"] == 15
    assert rows["file"].str.endswith("jacobi2d/v0_naive.cu").all()
    sampled_rows = rows[rows["samples"] > 0]
    assert set(sampled_rows["reason"]) == {"long_scoreboard", "selected"}
    # every memory instruction and exit of the function has a row, sampled or not;
    # the recorded SASS has the boundary copy's STG at +0x300 and LDG at +0x1e0
    access = rows.groupby("pc")["access"].first()
    # (the STG follows the interior's predicated EXIT: also the exit path)
    assert access[0x300] == "global_store;exit" and access[0x1E0] == "global_load"
    assert access[0x280] == ""  # the FADD accesses no memory
    unsampled = rows[rows["samples"] == 0]
    assert (unsampled["reason"] == "").all() and (unsampled["access"] != "").all()
    assert "exit" in set(access) and not set(unsampled["pc"]) & {0x280, 0x1E0, 0x300}


def test_a_folder_of_reports_gives_one_table(recording):
    folders = [recording / "profile/sgemm/v2_tiled_transposed", UNSAMPLED]
    table, notes = parse_source_files(folders)
    # the recorded SGEMM v2 (both profiled sizes) has samples; the old report says so
    assert sorted(table["size"].unique()) == [1024, 4096]
    assert len(notes) == 1 and NO_SAMPLES in notes[0] and str(UNSAMPLED) in notes[0]


# --- per line --------------------------------------------------------------------------


def _instructions(**labels):
    """Per-instruction rows of a two-kernel run: launch 0 sampled, launch 1 smaller."""
    base = {"family": "fam", "variant": "v1_x", "size": 1024, **labels}
    rows = [
        # launch, kernel, pc, line, reason, samples, source
        (0, "k_a", 0x10, 7, "long_scoreboard", 50, "x = a[i];"),
        (0, "k_a", 0x20, 7, "long_scoreboard", 20, "x = a[i];"),
        (0, "k_a", 0x20, 7, "selected", 5, "x = a[i];"),
        (0, "k_a", 0x30, 9, "barrier", 20, ""),
        (0, "k_a", 0x40, 9, "selected", 5, ""),
        (1, "k_b", 0x10, 12, "drain", 9, ""),
        (1, "k_b", 0x20, 13, "wait", 1, ""),
    ]
    return pd.DataFrame(
        [
            {
                **base,
                "launch": launch,
                "kernel": kernel,
                "pc": pc,
                "sass": "X",
                "file": "/gpu/box/kernels/fam/v1_x.cu",
                "line": line,
                "source": text,
                "reason": reason,
                "samples": count,
            }
            for launch, kernel, pc, line, reason, count, text in rows
        ]
    )


def test_lines_sum_their_instructions_and_shares_sum_to_one_per_launch():
    lines = line_table(_instructions())
    assert lines[["launch", "line"]].to_numpy().tolist() == [
        [0, 7],
        [0, 9],
        [1, 12],
        [1, 13],
    ]
    assert lines["samples"].tolist() == [75, 25, 9, 1]
    assert lines.groupby("launch")["share"].sum().tolist() == pytest.approx([1, 1])
    first = lines.iloc[0]
    assert first["share"] == pytest.approx(0.75)
    assert (first["top_reason"], first["top_reason_share"]) == (
        "long_scoreboard",
        pytest.approx(70 / 75),
    )
    assert first["samples_long_scoreboard"] == 70 and first["samples_selected"] == 5
    assert lines.iloc[1]["top_reason"] == "barrier"
    assert first["source"] == "x = a[i];" and lines.iloc[1]["source"] == ""
    assert [f"samples_{r}" for r in REASONS] == [
        c for c in lines.columns if c.startswith("samples_")
    ]


def test_a_reason_outside_the_counters_gets_its_own_column():
    rows = _instructions()
    rows.loc[0, "reason"] = "warpgroup_arrive"
    lines = line_table(rows)
    assert lines.columns[-1] == "samples_warpgroup_arrive"
    assert lines.iloc[0]["samples_warpgroup_arrive"] == 50


def test_line_table_does_not_mutate_its_input():
    rows = _instructions()
    before = rows.copy()
    line_table(rows)
    pd.testing.assert_frame_equal(rows, before)


def test_lines_read_against_the_family_folder(tmp_path):
    family = tmp_path / "kernels" / "fam"
    family.mkdir(parents=True)
    code = [f"// line {k}" for k in range(1, 15)]
    code[8] = "  __syncthreads();  "
    (family / "v1_x.cu").write_text("\n".join(code))
    assert locate("/gpu/box/kernels/fam/v1_x.cu", family) == family / "v1_x.cu"
    assert locate("/gpu/box/kernels/fam/missing.cu", family) is None
    path = tmp_path / "v1_x.source.csv"
    _instructions().to_csv(path, index=False)
    instructions, texts = read_hotspot_inputs([path], family)
    hot = build_hotspots(instructions, family, texts)
    assert set(hot["file"]) == {"v1_x.cu"}
    # embedded text wins; else the file's line
    assert hot["source"].tolist()[:2] == ["x = a[i];", "__syncthreads();"]
    written = write_hotspots([path], family, tmp_path / "out" / "hotspots.csv")
    assert (tmp_path / "out" / "hotspots.csv").is_file() and len(written) == 4


def test_no_samples_writes_an_empty_table_with_the_columns(tmp_path):
    empty = tmp_path / "v0.source.csv"
    SOURCE.empty().to_csv(empty, index=False)
    frame = write_hotspots([empty], tmp_path, tmp_path / "hotspots.csv")
    assert frame.empty
    assert "top_reason" in pd.read_csv(tmp_path / "hotspots.csv").columns


def test_hottest_line_of_a_run_and_of_one_kernel():
    hot = line_table(_instructions())
    top = hottest_line(hot, "v1_x", 1024)
    assert top is not None
    assert top[:4] == (7, 0.75, "long_scoreboard", "x = a[i];")
    assert top.reason_share == pytest.approx(70 / 75)
    assert top.access == frozenset() and top.attributed_drain == 0  # no access column
    by_kernel = hottest_line(hot, "v1_x", 1024, kernel="k_b")
    assert by_kernel is not None and by_kernel.line == 12
    assert by_kernel.reason == "drain" and by_kernel.share == pytest.approx(0.9)
    assert hottest_line(hot, "v1_x", 2048) is None
    assert hottest_line(hot, "v9_other", 1024) is None
    assert hottest_line(None, "v1_x", 1024) is None


# --- recorded reports with samples (the bundled recording once re-recorded) -----------


def _sampled_lines(recording, relative, family):
    frame, notes = parse_source_files([recording / relative])  # the variant's part
    assert not frame.empty, notes  # the recording holds the samples
    folder = KERNELS / family
    texts = {}
    for f in frame["file"].unique():
        path = locate(f, folder)
        if path is not None:
            texts[path] = path.read_text().splitlines()
    return build_hotspots(frame, folder, texts), texts


@pytest.mark.parametrize(
    ("relative", "family", "variant", "line", "code"),
    [
        (JACOBI_V0, "jacobi2d", "v0_naive", 18, "A[idx - 1] + A[idx + 1]"),
        (SGEMM_V2, "sgemm", "v2_tiled_transposed", 34, "As[ty][k] * Bs[tx][k]"),
    ],
)
def test_recorded_hottest_line_is_the_one_a_reader_expects(
    recording, relative, family, variant, line, code
):
    hot, texts = _sampled_lines(recording, relative, family)
    for size in hot["size"].unique():
        top = hottest_line(hot, variant, int(size))
        assert top is not None and top.line == line and code in top.source, size
    shares = hot.groupby(["size", "launch"])["share"].sum()
    assert shares.between(0.99, 1.01).all()
    for file, rows in hot.groupby("file"):  # every line is a line of the source
        length = len(texts[locate(str(file), KERNELS / family)])
        assert rows["line"].between(1, length).all(), file


# --- report ------------------------------------------------------------------------


def _jacobi_hotspots():
    """Made-up samples on Jacobi v0 / v1 lines (the report's text, not the GPU's)."""
    rows = []
    for variant, lines in {
        "v0_naive": [(18, "long_scoreboard", 71), (15, "drain", 9), (11, "wait", 20)],
        "v1_smem": [(27, "barrier", 40), (31, "long_scoreboard", 60)],
    }.items():
        for k, (line, reason, count) in enumerate(lines):
            rows.append(
                {
                    "family": "jacobi2d",
                    "variant": variant,
                    "size": 8192,
                    "launch": 0,
                    "kernel": "k",
                    "pc": 16 * k,
                    "sass": "X",
                    "file": f"/gpu/kernels/jacobi2d/{variant}.cu",
                    "line": line,
                    "source": "",
                    "reason": reason,
                    "samples": count,
                }
            )
    folder = KERNELS / "jacobi2d"
    frame = pd.DataFrame(rows)
    texts = {
        folder / f"{v}.cu": (folder / f"{v}.cu").read_text().splitlines()
        for v in ("v0_naive", "v1_smem")
    }
    return build_hotspots(frame, folder, texts)


def _report(analysis, tmp_path, language="en"):
    out = tmp_path / f"report_{language}"
    write_report(analysis, tmp_path / "figures", out, language=language)
    return (out / f"{report_stem(language)}.md").read_text()


def _part(text: str, heading: str) -> str:
    """One part of the report's appendix, from its heading to the next part."""
    start = text.index(heading)
    return text[start : text.index("### A.", start)]


def test_report_shows_hottest_lines_in_baseline_and_step(recording, tmp_path):
    analysis = _analyze(recording, "jacobi2d", tmp_path)
    _jacobi_hotspots().to_csv(analysis / "hotspots.csv", index=False)
    text = _report(analysis, tmp_path)
    start = text.index("under Nsight Compute")  # the appendix's part on the baseline
    baseline = text[start : text.index("### A.", start)]
    assert "**Hottest source lines** of `v0_naive` at n = 8192" in baseline
    assert "100 warp-state samples" in baseline
    row = next(r for r in baseline.splitlines() if re.match(r"\|\s+1 \|\s+18 \|", r))
    assert "A[idx - 1]" in row and "71.0%" in row and "long_scoreboard 100%" in row
    step = _part(text, "Step 1: `v1_smem` in full")
    assert "**Hottest source lines, before and after** at n = 8192" in step
    first = next(r for r in step.splitlines() if re.match(r"\|\s+1 \|", r))
    assert "71.0%" in first and "60.0%" in first and re.search(r"\|\s+31 \|", first)
    # v2 has no samples while the family has some: said in its step
    step2 = _part(text, "Step 2: `v2_coarsen2` in full")
    assert "Hottest source lines of `v2_coarsen2` at n = 8192: not measured" in step2
    assert "warp-state samples of one launch" in text  # the limitation that applies
    zh = _report(analysis, tmp_path, "zh")
    assert "最热源码行" in zh and "71.0%" in zh


def test_report_without_samples_says_not_measured_once(recording, tmp_path):
    analysis = _analyze(recording, "jacobi2d", tmp_path)
    assert pd.read_csv(analysis / "hotspots.csv").empty  # the recording has none
    text = _report(analysis, tmp_path)
    assert text.count("not measured, the Nsight Compute report holds no") == 1
    assert "Hottest source lines of `v0_naive` at n = 8192: not measured" in text
    assert "not which source line made them wait" in text


def test_code_cells_are_code_spans_with_escaped_pipes():
    assert code_cell("a = b || c;", 3) == "` a = b \\|\\| c; `"
    assert code_cell("x" * 100, 3).endswith("... `")
    with i18n.language("en"):
        assert code_cell("", 0) == "(no line information)"
    assert code_cell(float("nan"), 4) == ""


def test_html_shows_the_pipes_of_code_in_a_table(recording, tmp_path):
    analysis = _analyze(recording, "jacobi2d", tmp_path)
    _jacobi_hotspots().to_csv(analysis / "hotspots.csv", index=False)
    _report(analysis, tmp_path)
    page = (tmp_path / "report_en" / "report.html").read_text()
    assert "<code>if (i &gt;= n || j &gt;= n) return;</code>" in page
    assert "\\|" not in page


def test_multi_kernel_variants_show_each_launch_in_launch_order(
    recording, tmp_path, monkeypatch
):
    import recorded

    monkeypatch.setitem(recorded.KERNELS, "scan", ROOT / "kernels")
    analysis = _analyze(recording, "scan", tmp_path)
    n = int(pd.read_csv(analysis / "analysis.csv").query("profiled")["size"].max())
    kernels = {
        "v0_kogge_stone": ["scan_v0_tiles", "scan_tile_sums", "scan_add_offsets"],
        "v1_brent_kung": ["scan_v1_tiles", None, "scan_add_offsets"],
    }
    rows = [
        {
            "family": "scan",
            "variant": variant,
            "size": n,
            "launch": launch,
            "kernel": kernel,
            "pc": 0,
            "sass": "X",
            "file": "x.cu",
            "line": 10 + launch,
            "source": f"line_of_launch_{launch}",
            "reason": "long_scoreboard",
            "samples": 100 * (launch + 1),
        }
        for variant, names in kernels.items()
        for launch, kernel in enumerate(names)
        if kernel
    ]
    build_hotspots(pd.DataFrame(rows), KERNELS / "scan", {}).to_csv(
        analysis / "hotspots.csv", index=False
    )
    text = _report(analysis, tmp_path)
    start = text.index("under Nsight Compute")  # the appendix's part on the baseline
    baseline = text[start : text.index("### A.", start)]
    captions = [line for line in baseline.splitlines() if line.startswith("Launch ")]
    assert captions == [
        "Launch 0: `scan_v0_tiles` (100 samples)",
        "Launch 1: `scan_tile_sums` (200 samples)",
        "Launch 2: `scan_add_offsets` (300 samples)",
    ]
    step = _part(text, "Step 1: `v1_brent_kung` in full")
    assert (
        "Launch 1: `scan_tile_sums` (200 samples) -> `not sampled` (0 samples)" in step
    )
    assert step.index("Launch 0:") < step.index("Launch 1:") < step.index("Launch 2:")
    # the launch with the most samples is the run's hottest
    hot = pd.read_csv(analysis / "hotspots.csv")
    assert hottest_line(hot, "v0_kogge_stone", n).line == 12


def test_a_table_read_with_no_inlined_sites_gives_empty_sites_and_no_warning():
    """An all-empty ``inlined`` column reads back from CSV as NaN floats."""
    import warnings

    rows = _instructions().assign(inlined=float("nan"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lines = line_table(rows)
    assert lines["inlined"].tolist() == [""] * len(lines)


def test_code_read_once_per_function_gives_the_rows_read_per_launch(
    recording, tmp_path
):
    # SGEMM v2's two sizes run one function at one address: the second launch's SASS
    # and sources come from the first's, and its rows are those it reads on its own
    from nsightflow.tools.ncu_source import launch_code
    from profiles import actions_of, runs

    run = runs(recording / SGEMM_V2, tmp_path)[0]
    actions = [actions_of(run.path, tmp_path)[a] for a in run.actions]
    first, second = _sampled_first(actions[0]), _sampled_first(actions[-1])
    seen: dict = {}
    shared = [pd.DataFrame(action_rows(a, seen=seen)) for a in (first, second)]
    alone = [pd.DataFrame(action_rows(a)) for a in (first, second)]
    assert len(seen) == 1 and len(shared[1]) >= 20
    for a, b in zip(shared, alone, strict=True):
        pd.testing.assert_frame_equal(a, b)
    # a launch whose first instruction differs is read again, not served from `seen`
    other = _OtherCode(second)
    assert launch_code(other, seen).sass[other.start] == "NOP"


def _sampled_first(action):
    """The launch with one made-up sample at its function's first instruction."""
    start = action.metric_by_name("launch__function_pcs").as_uint64(0)
    return _Sampled(action, {"smsp__pcsamp_warps_issue_stalled_selected": {start: 1}})


class _OtherCode(_Sampled):
    """A launch of the same name and address whose code is a single NOP."""

    def __init__(self, action):
        super().__init__(action, {})
        self.start = action.metric_by_name("launch__function_pcs").as_uint64(0)

    def sass_by_pc(self, pc):
        return "NOP" if pc == self.start else ""
