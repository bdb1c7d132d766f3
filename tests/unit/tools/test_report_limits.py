"""An ``.ncu-rep`` is loaded within bounds: refused by its size before a byte is
read, loaded in a child process held to memory and time limits when large, and a
truncated one is "truncated" in one line."""

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from nsightflow.errors import ReportParseError
from nsightflow.tools import ncu_limits as limits
from nsightflow.tools import ncu_report_io as io

pytest.importorskip("ncu_report")

ROOT = Path(__file__).resolve().parents[3]
# a variant profiled alone: its own report in its folder (the Triton launcher's)
REPORT = ROOT / "examples/h200/profile/vecadd/v4_triton/n16777216.ncu-rep"


def _variant(tmp_path: Path, data: bytes | None = None, size: int = 0) -> Path:
    """A copy of the recorded variant's folder whose report is ``data`` (or sparse)."""
    folder = tmp_path / REPORT.parent.name
    folder.mkdir()
    shutil.copy(REPORT.parent / "profile.json", folder)
    report = folder / REPORT.name
    if data is None:
        subprocess.run(["truncate", "-s", str(size), str(report)], check=True)
    else:
        report.write_bytes(data)
    return folder


def test_a_2gb_sparse_report_is_refused_by_its_size_at_once(tmp_path):
    folder = _variant(tmp_path, size=2 << 30)  # costs no disk
    start = time.monotonic()
    with pytest.raises(ReportParseError, match="2,048 MiB, over the 512 MiB"):
        io.load_context(folder / REPORT.name)
    assert time.monotonic() - start < 1.0


@pytest.mark.parametrize("fraction", [0.05, 0.3, 0.5, 0.7, 0.9])
def test_a_truncated_recorded_report_is_truncated_in_one_line(tmp_path, fraction):
    data = REPORT.read_bytes()
    folder = _variant(tmp_path, data[: int(len(data) * fraction)])
    outputs = ["-o", str(tmp_path / "m.csv"), "--source", str(tmp_path / "s.csv")]
    done = subprocess.run(
        [sys.executable, "-m", "nsightflow", "parse", str(folder), *outputs],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "truncated" in lines[0] and REPORT.name in lines[0]


def test_a_large_report_whose_load_hangs_is_refused_after_the_time_limit(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(limits, "PROBE_BYTES", 0)
    monkeypatch.setattr(limits, "PROBE_TIMEOUT_S", 0.2)
    monkeypatch.setattr(limits, "_PROBE", "import time; time.sleep(30)")
    folder = _variant(tmp_path, REPORT.read_bytes())
    io._cached_context.cache_clear()
    start = time.monotonic()
    with pytest.raises(ReportParseError, match="took over 0 s"):
        io.load_context(folder / REPORT.name)
    assert time.monotonic() - start < 10


def test_a_large_report_whose_load_grows_past_the_memory_limit_is_refused(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(limits, "PROBE_BYTES", 0)
    monkeypatch.setattr(limits, "PROBE_MEMORY_BYTES", 1 << 30)
    monkeypatch.setattr(limits, "_PROBE", "x = bytearray(2 << 30)")
    folder = _variant(tmp_path, REPORT.read_bytes())
    io._cached_context.cache_clear()
    with pytest.raises(ReportParseError, match=r"failed within 1024 MiB.*MemoryError"):
        io.load_context(folder / REPORT.name)


def test_a_large_whole_report_passes_the_probe(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "PROBE_BYTES", 0)
    folder = _variant(tmp_path, REPORT.read_bytes())
    io._cached_context.cache_clear()
    context = io.load_context(folder / REPORT.name)
    assert context.num_ranges() == 1
