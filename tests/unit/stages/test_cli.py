import json
import shutil
from pathlib import Path

from cli_run import nsightflow

ROOT = Path(__file__).resolve().parents[3]


def _run(*args, cwd=ROOT):
    return nsightflow(*map(str, args), cwd=cwd)


def test_parse_cli_writes_table(recording, tmp_path):
    out = tmp_path / "m.csv"
    proc = _run(
        "parse",
        str(recording / "profile/jacobi2d/v0_naive"),  # its part of the family report
        "-o",
        str(out),
    )
    assert proc.returncode == 0, proc.stderr
    assert "gpu__time_duration.sum" in out.read_text()


def test_parse_cli_missing_file_exits_2(tmp_path):
    proc = _run(
        "parse", str(tmp_path / "absent.ncu-rep"), "-o", str(tmp_path / "m.csv")
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("ERROR: ") and "absent.ncu-rep" in proc.stderr


def test_a_missing_stage_input_names_the_file_not_a_bug(tmp_path):
    proc = _run(
        "plot", "--analysis-dir", str(tmp_path / "none"), "--out-dir", str(tmp_path)
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("ERROR: ") and "bug" not in proc.stderr
    assert str(tmp_path / "none" / "analysis.csv") in proc.stderr


def test_unknown_variant_names_the_manifest(tmp_path):
    proc = _run(
        "compile",
        "--family",
        "jacobi2d",
        "--variant",
        "v9_fast",
        "--cubin",
        str(tmp_path / "x.cubin"),
        "--resources",
        str(tmp_path / "x.json"),
    )
    assert proc.returncode == 2
    assert "kernels/jacobi2d/family.yaml" in proc.stderr and "v9_fast" in proc.stderr


def test_record_refuses_to_overwrite(recording, tmp_path):
    target = tmp_path / "rec"
    target.mkdir()
    (target / "keep.txt").write_text("measured")
    proc = _run("record", "--results", str(recording), "--out", str(target))
    assert proc.returncode == 2 and "never overwritten" in proc.stderr
    assert (target / "keep.txt").read_text() == "measured"


def test_parse_accepts_nvprof_era_metric_names(recording, tmp_path):
    out = tmp_path / "m.csv"
    proc = _run(
        "parse",
        str(recording / "profile/jacobi2d/v0_naive"),  # its part of the family report
        "-o",
        str(out),
        "--metrics",
        "achieved_occupancy",
        "dram_read_bytes",
    )
    assert proc.returncode == 0, proc.stderr
    import pandas as pd

    table = pd.read_csv(out)
    assert set(table["metric"]) == {
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "dram__bytes_read.sum",
    }


def test_record_adds_to_a_recording_and_says_what_it_replaced(recording, tmp_path):
    target = tmp_path / "rec"
    assert (
        _run("record", "--results", str(recording), "--out", str(target)).returncode
        == 0
    )
    before = json.loads((target / "recording.json").read_text())
    later = tmp_path / "later"
    for path in (recording / "verify/faulty").glob("*.json"):
        (later / "verify/faulty").mkdir(parents=True, exist_ok=True)
        (later / "verify/faulty" / path.name).write_text(path.read_text())
    # A folder the recording does not hold yet: added, not replaced.
    (later / "sanitize/later").mkdir(parents=True)
    moved = json.loads((recording / "sanitize/faulty/v0_naive.json").read_text())
    (later / "sanitize/later/v0_naive.json").write_text(
        json.dumps({**moved, "family": "later"})
    )
    proc = _run("record", "--add", "--results", str(later), "--out", str(target))
    assert proc.returncode == 0, proc.stderr
    after = json.loads((target / "recording.json").read_text())
    assert {k: after[k] for k in before} == before  # its own account is kept
    (added,) = after["additions"]
    assert added["folders"] == ["sanitize/later", "verify/faulty"]
    assert "verify/faulty/v1_wrong.json" in added["replaced"]
    assert "sanitize/later/v0_naive.json" not in added["replaced"]
    assert (target / "sanitize/later/v0_naive.json").is_file()
    proc = _run(
        "record", "--add", "--results", str(later), "--out", str(tmp_path / "x")
    )
    assert proc.returncode == 2 and "not a recording" in proc.stderr


def _add_alone(recording: Path, tmp_path: Path, folder: str) -> dict:
    """The addition a recording gets from a run holding only ``folder`` (one family)."""
    target = tmp_path / "rec"
    target.mkdir()
    (target / "recording.json").write_text('{"gpu": "NVIDIA H200"}')
    later = tmp_path / "later"
    (later / folder).parent.mkdir(parents=True)
    shutil.copytree(recording / folder, later / folder)
    proc = _run("record", "--add", "--results", str(later), "--out", str(target))
    assert proc.returncode == 0, proc.stderr
    (added,) = json.loads((target / "recording.json").read_text())["additions"]
    return added


def test_an_addition_of_traces_alone_names_their_gpu_and_families(recording, tmp_path):
    added = _add_alone(recording, tmp_path, "timeline/jacobi2d")
    first = sorted(recording.glob("timeline/jacobi2d/*.json"))[0]
    traced = json.loads(first.read_text())
    assert added["families"] == ["jacobi2d"] and added["gpu"] == "NVIDIA H200"
    assert added["date"] == traced["provenance"]["date"]
    assert added["timeline"]["backend"] == traced["backend"]


def test_a_family_from_an_addition_names_that_run_in_its_banner():
    from nsightflow.machine.recording import recording_for

    info = {
        "date": "first",
        "kernels_git": "aaa",
        "additions": [
            {"date": "later", "kernels_git": "bbb", "folders": ["time/faulty"]},
            {"date": "sanitizer", "folders": ["sanitize/jacobi2d"]},
        ],
    }
    assert recording_for(info, "faulty")["date"] == "later"
    assert recording_for(info, "faulty")["kernels_git"] == "bbb"
    assert recording_for(info, "jacobi2d") == {"date": "first", "kernels_git": "aaa"}


def test_an_addition_of_profiles_alone_names_their_gpu_and_families(
    recording, tmp_path
):
    added = _add_alone(recording, tmp_path, "profile/sgemm")
    meta = json.loads((recording / "profile/sgemm/v0_naive/profile.json").read_text())
    assert added["families"] == ["sgemm"]
    assert added["gpu"] == meta["provenance"]["gpu"] == "NVIDIA H200"
    assert added["date"] == meta["provenance"]["date"]


def test_stages_chained_with_then_run_in_order_in_one_process(recording, tmp_path):
    first, second = tmp_path / "a.csv", tmp_path / "b.csv"
    ceilings = str(recording / "ceilings.json")
    proc = _run(
        *("ceilings-table", ceilings, "-o", str(first)),
        *("--then", "ceilings-table", ceilings, "-o", str(second)),
    )
    assert proc.returncode == 0, proc.stderr
    assert (
        first.read_text() == second.read_text() and "NVIDIA H200" in first.read_text()
    )


def test_a_failing_stage_stops_the_chain(tmp_path):
    second = tmp_path / "b.csv"
    proc = _run(
        *("ceilings-table", str(tmp_path / "absent.json"), "-o", str(tmp_path / "a")),
        *("--then", "ceilings-table", str(tmp_path / "absent.json"), "-o", str(second)),
    )
    assert proc.returncode == 2 and proc.stderr.count("ERROR: ") == 1, proc.stderr
    assert "absent.json" in proc.stderr and not second.exists()


def test_every_chained_stage_is_checked_before_the_first_runs(recording, tmp_path):
    first = tmp_path / "a.csv"
    proc = _run(
        *("ceilings-table", str(recording / "ceilings.json"), "-o", str(first)),
        *("--then", "ceilings-table", "--no-such-option"),
    )
    assert proc.returncode == 2 and "ceilings-table: error:" in proc.stderr
    assert not first.exists()
    empty = _run("ceilings-table", str(first), "-o", str(first), "--then")
    assert empty.returncode == 2 and "--then needs a stage on each side" in empty.stderr


def test_a_process_logs_its_stages_and_cpu_seconds_where_asked(recording, tmp_path):
    """NSIGHTFLOW_CPU_LOG: what the replay benchmark sums per stage."""
    import os

    log = tmp_path / "cpu.log"
    ceilings = str(recording / "ceilings.json")
    env = {**os.environ, "NSIGHTFLOW_CPU_LOG": str(log)}
    for _ in range(2):
        proc = nsightflow(
            *("ceilings-table", ceilings, "-o", str(tmp_path / "a.csv")),
            *("--then", "ceilings-table", ceilings, "-o", str(tmp_path / "b.csv")),
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
    lines = [line.split("\t") for line in log.read_text().splitlines()]
    assert [line[0] for line in lines] == ["ceilings-table+ceilings-table"] * 2
    assert all(float(user) + float(system) > 0 for _, user, system in lines)
