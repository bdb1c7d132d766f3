import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _run(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "nsightflow", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_parse_cli_writes_table(recording, tmp_path):
    out = tmp_path / "m.csv"
    proc = _run(
        "parse",
        str(recording / "profile/jacobi2d/v0_naive/n2048.ncu-rep"),
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
        str(recording / "profile/jacobi2d/v0_naive/n8192.ncu-rep"),
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
