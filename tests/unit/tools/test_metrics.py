"""The declared metric list is what the report reads, and what the recording holds."""

from pathlib import Path

import pytest

from nsightflow.analysis.analyze import NCU_COLUMNS
from nsightflow.tools import ncu_metrics as M
from nsightflow.tools.ncu import NcuSettings, ncu_argv
from nsightflow.tools.ncu_parse import parse_files


def test_report_reads_only_declared_metrics():
    declared = set(M.EXTRA_METRICS) | set(M.FROM_SECTIONS)
    assert set(NCU_COLUMNS.values()) <= declared
    assert {M.stall_metric(r) for r in M.STALL_REASONS} <= declared


# Every family of the recording was profiled with today's lean set (three sections and
# the declared metrics, no SpeedOfLight). faulty's run (revision 695cdcd) predates the
# pattern metrics: those alone are absent there.
BEFORE_PATTERNS = {"faulty"}
# Recorded before the regime counters (pipe, issue, throughput percentages,
# store requests, local memory, bytes per sector): take a family out of this set when
# it is re-recorded with today's lean set.
BEFORE_REGIME = {"faulty"}  # the eight default families: re-profiled at e3309df
# Recorded before the per-pipe utilizations and instruction classes (MIX_METRICS):
# faulty alone, carried over; the eight default families were re-recorded with them.
BEFORE_MIX = {"faulty"}


@pytest.mark.parametrize(
    "family",
    [
        "jacobi2d",
        "sgemm",
        "vecadd",
        "reduction",
        "histogram",
        "conv2d",
        "scan",
        "spmv",
        "faulty",
    ],
)
def test_recorded_reports_hold_every_declared_metric(recording, family):
    declared = set(M.EXTRA_METRICS) | set(M.FROM_SECTIONS)
    if family in BEFORE_PATTERNS:
        declared -= set(M.PATTERN_METRICS)
    if family in BEFORE_REGIME:
        declared -= set(M.REGIME_METRICS)
    if family in BEFORE_MIX:
        declared -= set(M.MIX_METRICS)
    # each profiled variant's folder: its part of the family report, or its own
    # report (.xz for the PyTorch and CuPy variants)
    folders = [
        p.parent
        for p in sorted(recording.glob(f"profile/{family}/*/profile.json"))
        if '"file"' in p.read_text()
    ]
    assert folders
    for folder in folders:
        metrics, _ = parse_files([folder])
        assert not metrics.empty, folder
        for size, launch in metrics.groupby(["size", "launch"]).groups:
            held = metrics[(metrics["size"] == size) & (metrics["launch"] == launch)]
            missing = declared - set(held["metric"])
            assert not missing, f"{folder} n={size} #{launch}: {sorted(missing)}"


def test_lean_argv_collects_the_declared_list_and_one_launch():
    argv = ncu_argv(NcuSettings(), "k", Path("r.ncu-rep"), ["python", "x.py"])
    assert argv[argv.index("--metrics") + 1].split(",") == [
        *M.EXTRA_METRICS,
        *M.SOURCE_METRICS,
    ]
    assert [argv[i + 1] for i, a in enumerate(argv) if a == "--section"] == list(
        M.SECTIONS
    )
    assert argv[argv.index("--launch-count") + 1] == "1"
    assert argv[argv.index("--clock-control") + 1] == "none"
    assert argv[-2:] == ["python", "x.py"]
    sizes = ncu_argv(NcuSettings(), "k", Path("r"), ["t"], launches=2)
    assert sizes[sizes.index("--launch-count") + 1] == "2"
    full = ncu_argv(NcuSettings(set="full"), "k", Path("r"), ["t"])
    assert "--set" in full and "--metrics" not in full


def test_nvprof_aliases_map_to_ncu_names():
    assert M.resolve(["achieved_occupancy", "gld_throughput", "dram__bytes.sum"]) == [
        M.ACHIEVED_OCCUPANCY,
        "l1tex__t_bytes_pipe_lsu_mem_global_op_ld.sum.per_second",
        "dram__bytes.sum",
    ]


def test_replay_passes_read_from_ncu_output():
    from nsightflow.tools.ncu import replay_passes

    out = (
        '==PROF== Profiling "jacobi2d_v0": 0%....50%....100% - 9 passes\n'
        "==PROF== Disconnected from process 123\n"
    )
    assert replay_passes(out) == [9]
    two = out + '==PROF== Profiling "jacobi2d_v0": 0%....50%....100% - 10 passes\n'
    assert replay_passes(two) == [9, 10]
    assert replay_passes("==PROF== Profiling k: 100% - 1 pass") == [1]
    assert replay_passes("no profile here") == []
