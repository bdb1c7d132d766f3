"""Timeline backends on the CPU: choosing nsys or CUPTI, and reading nsys's CSV export.

The nsys CSV is the hand-written fixture of tests/data/timeline/nsys_documented_format
(documented format, invented numbers: see its README); fake ``nsys`` executables on
PATH stand in for an nsys that can or cannot write reports.
"""

import json
import os
import stat
from pathlib import Path

import pytest

from nsightflow.contracts import TIMELINE
from nsightflow.gpu.timeline import driver as timeline
from nsightflow.gpu.timeline.driver import Capabilities, choose_backend
from nsightflow.machine import doctor
from nsightflow.tools import nsys as timeline_nsys

ROOT = Path(__file__).resolve().parents[3]
NSYS_CSV = (
    ROOT
    / "tests/data/timeline/nsys_documented_format"
    / "jacobi2d_v0_naive_cuda_gpu_trace.HANDWRITTEN.csv"
)
QDSTRM_ONLY = "cannot import its own capture here"


def caps(nsys: bool, cupti: bool) -> Capabilities:
    return Capabilities(
        nsys,
        "writes .nsys-rep reports" if nsys else "nsys profile wrote ['probe.qdstrm']",
        cupti,
        "cupti-python loads" if cupti else "cupti-python is not installed",
    )


# --- choosing the backend ------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "nsys", "cupti", "expected"),
    [
        ("auto", True, True, "nsys"),
        ("auto", True, False, "nsys"),
        ("auto", False, True, "cupti"),
        ("auto", False, False, None),
        ("nsys", True, True, "nsys"),
        ("nsys", False, True, "cupti"),
        ("cupti", True, True, "cupti"),
        ("cupti", True, False, None),
    ],
)
def test_nsys_where_it_writes_reports_else_cupti(requested, nsys, cupti, expected):
    choice = choose_backend(requested, caps(nsys, cupti))
    assert choice.backend == expected
    assert choice.requested == requested


def test_the_fallback_says_why_nsys_was_passed_over():
    choice = choose_backend("auto", caps(False, True))
    assert "nsys cannot be used here (nsys profile wrote ['probe.qdstrm'])" in (
        choice.message
    )
    assert "falling back to CUPTI" in choice.message


def test_no_backend_names_both_fixes():
    message = choose_backend("auto", caps(False, False)).message
    assert "cupti-python is not installed" in message
    assert "timeline.enabled: false" in message


def _fake_nsys(folder: Path, writes_report: bool) -> None:
    """An `nsys` that writes a .qdstrm, and a .nsys-rep only if it can import it."""
    script = folder / "nsys"
    suffix = ".nsys-rep" if writes_report else ".qdstrm"
    script.write_text(
        "#!/bin/sh\n"
        'while [ "$#" -gt 0 ]; do\n'
        '  case "$1" in -o|--output) out="$2"; shift;; esac; shift\n'
        "done\n"
        f'touch "$out{suffix}"\n'
        f"exit {0 if writes_report else 1}\n"
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)


@pytest.mark.parametrize("writes_report", [True, False])
def test_probe_selects_nsys_only_where_it_writes_a_report(
    tmp_path, monkeypatch, writes_report
):
    _fake_nsys(tmp_path, writes_report)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    ok, found = doctor.nsys_can_write_reports()
    assert ok is writes_report
    if not writes_report:
        assert "probe.qdstrm" in found and "no .nsys-rep" in found
    probed = timeline.probe_capabilities()
    assert choose_backend("auto", probed).backend == (
        "nsys" if writes_report else ("cupti" if probed.cupti_ok else None)
    )


def test_nsys_run_that_leaves_a_qdstrm_is_nsys_failed(tmp_path, monkeypatch):
    _fake_nsys(tmp_path, writes_report=False)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")
    spec = {"family": "jacobi2d", "variant": "v0_naive", "sizes": [8192], "rounds": 2}
    result = timeline_nsys.record(spec, timeout_s=30)
    assert result["status"] == "nsys_failed"
    assert "['trace.qdstrm'] but no .nsys-rep" in result["message"]


# --- nsys's command lines and CSV ---------------------------------------------------


def test_nsys_argv():
    assert timeline_nsys.profile_argv(Path("/t/trace"), ["python", "w.py"]) == [
        "nsys",
        "profile",
        "--trace=cuda",
        "--sample=none",
        "--cpuctxsw=none",
        "--force-overwrite=true",
        "--output",
        "/t/trace",
        "python",
        "w.py",
    ]
    assert timeline_nsys.stats_argv(Path("t.nsys-rep"), Path("/t/stats")) == [
        "nsys",
        "stats",
        "--report",
        "cuda_gpu_trace",
        "--format",
        "csv",
        "--force-export=true",
        "--output",
        "/t/stats",
        "t.nsys-rep",
    ]


def test_gpu_trace_csv_skips_the_preamble_and_keeps_nsys_headers():
    raw = timeline_nsys.read_gpu_trace(NSYS_CSV.read_text(), str(NSYS_CSV))
    assert len(raw) == 16  # 2 sizes x 2 rounds x (copy in, memset, kernel, copy out)
    assert raw[0]["Name"] == "[CUDA memcpy Host-to-Device]"
    assert raw[0]["Bytes (MB)"] == pytest.approx(16.777216)
    assert raw[2]["Bytes (MB)"] is None  # a kernel: empty cell, not NaN


def test_gpu_trace_rows_in_bytes_and_ns_with_the_shared_names():
    raw = timeline_nsys.read_gpu_trace(NSYS_CSV.read_text(), str(NSYS_CSV))
    rows = timeline_nsys.rows(raw[:4])
    assert [r["kind"] for r in rows] == [
        "memcpy_htod",
        "memset",
        "kernel",
        "memcpy_dtoh",
    ]
    assert [r["bytes"] for r in rows] == [4 * 2048**2, 4 * 2048**2, None, 4 * 2048**2]
    assert rows[0]["name"] == "memcpy HtoD (pageable -> device)"
    assert rows[3]["name"] == "memcpy DtoH (device -> pageable)"
    assert rows[1]["name"] == "memset (device)"
    assert rows[2]["name"] == "jacobi2d_v0"
    assert rows[2]["end_ns"] - rows[2]["start_ns"] == 15_100
    assert {r["stream"] for r in rows} == {7}


def test_units_come_from_the_headers():
    text = (
        "Start (us),Duration (us),Bytes (KiB),SrcMemKd,DstMemKd,Strm,Name\n"
        "1.5,2.25,4,Pinned,Device,3,[CUDA memcpy HtoD]\n"
        "5,1,,,,3,k\n"
    )
    rows = timeline_nsys.rows(timeline_nsys.read_gpu_trace(text, "t.csv"))
    assert rows[0] == {
        "kind": "memcpy_htod",
        "name": "memcpy HtoD (pinned -> device)",
        "start_ns": 1500,
        "end_ns": 3750,
        "bytes": 4096,
        "stream": 3,
    }
    assert rows[1]["kind"] == "kernel" and rows[1]["bytes"] is None


def test_unknown_unit_and_missing_header_are_named():
    with pytest.raises(ValueError, match="unit 'parsecs'"):
        timeline_nsys.rows(
            timeline_nsys.read_gpu_trace(
                "Start (parsecs),Duration (ns),Bytes (B),Name\n1,1,,k\n", "t.csv"
            )
        )
    with pytest.raises(ValueError, match=r"t\.csv: no cuda_gpu_trace header"):
        timeline_nsys.read_gpu_trace("Time (%),Total Time (ns),Name\n", "t.csv")


def test_rounds_split_into_the_kept_round_of_each_size():
    raw = timeline_nsys.read_gpu_trace(NSYS_CSV.read_text(), str(NSYS_CSV))
    sizes = [
        {"size": 2048, "status": "ok", "raw": []},
        {"size": 4096, "status": "unsupported", "raw": []},
        {"size": 8192, "status": "ok", "raw": []},
    ]
    split = timeline_nsys.assign_rounds(list(reversed(raw)), sizes, rounds=2)
    assert [len(s["raw"]) for s in split] == [4, 0, 4]
    # the second (kept) round of each size, in time order
    assert [r["CorrId"] for r in split[0]["raw"]] == [105, 106, 107, 108]
    assert [r["CorrId"] for r in split[2]["raw"]] == [113, 114, 115, 116]
    assert split[1]["status"] == "unsupported"


def test_rounds_that_do_not_split_evenly_are_flagged():
    raw = timeline_nsys.read_gpu_trace(NSYS_CSV.read_text(), str(NSYS_CSV))
    sizes = [{"size": 2048, "status": "ok"}, {"size": 8192, "status": "ok"}]
    split = timeline_nsys.assign_rounds(raw[:-1], sizes, rounds=2)
    assert {s["status"] for s in split} == {"trace_mismatch"}
    assert "15 GPU activities, not a multiple of 4" in split[0]["message"]


def test_an_nsys_record_becomes_the_same_table_as_cupti(tmp_path):
    raw = timeline_nsys.read_gpu_trace(NSYS_CSV.read_text(), str(NSYS_CSV))
    sizes = timeline_nsys.assign_rounds(
        raw, [{"size": 2048, "status": "ok"}, {"size": 8192, "status": "ok"}], 2
    )
    record = {
        "family": "jacobi2d",
        "variant": "v0_naive",
        "status": "ok",
        "message": "",
        "backend": "nsys",
        "sizes": json.loads(json.dumps(sizes)),  # as stored in the JSON record
    }
    table = timeline.table_of(record)
    assert tuple(table.columns) == TIMELINE.columns
    big = table[table["size"] == 8192]
    assert big["start_ns"].min() == 0
    assert list(big["kind"]) == ["memcpy_htod", "memset", "kernel", "memcpy_dtoh"]
