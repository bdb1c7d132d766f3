"""The GPU workers' test double: one reader of its variable, records marked as such."""

import shutil
from pathlib import Path

from nsightflow.machine import double

ROOT = Path(__file__).resolve().parents[3]
RECORDING = ROOT / "examples" / "h200"


def test_only_the_double_reads_its_variable():
    readers = [
        p.relative_to(ROOT / "src").as_posix()
        for p in (ROOT / "src" / "nsightflow").rglob("*.py")
        if double.ENV in p.read_text() and "i18n" not in p.parts
    ]
    assert readers == ["nsightflow/machine/double.py"]


def test_unset_the_gpu_workers_run(monkeypatch):
    monkeypatch.delenv(double.ENV, raising=False)
    assert double.folder() is None


def test_a_record_is_the_folders_file_marked_as_a_test_double(tmp_path, monkeypatch):
    shutil.copytree(RECORDING / "time" / "vecadd", tmp_path / "time" / "vecadd")
    shutil.copy2(RECORDING / "recording.json", tmp_path / "recording.json")
    monkeypatch.setenv(double.ENV, str(tmp_path))
    got = double.record("time", ("vecadd", "v0_one_per_thread"))
    assert got["test_double"] == str(tmp_path)
    assert got["status"] == "ok" and got["rows"]
    assert got["replayed_from"].startswith(str(tmp_path))
    missing = double.record("verify", ("vecadd", "v0_one_per_thread"))
    assert missing["status"] == "not_recorded" and missing["test_double"]
    sweep = double.sweep_record(("vecadd", "v0_one_per_thread"))
    assert sweep["best"] is None and sweep["configs"] == []
