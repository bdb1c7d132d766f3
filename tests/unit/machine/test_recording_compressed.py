"""A recording keeps a large report xz-compressed beside the name its profile.json
gives; every reader finds it there and expands it within the report size limit."""

import json
import lzma
from pathlib import Path, PurePosixPath

import pytest

from nsightflow.errors import ReportParseError
from nsightflow.io import write_json
from nsightflow.machine import recorder
from nsightflow.machine.recording import record
from nsightflow.tools import ncu_limits
from nsightflow.untrusted import Tree, profile_reports

BIG = bytes(range(256)) * 64  # 16 KiB: "large" once COMPRESS_BYTES is 4 KiB


def _profile(results: Path, variant: str, file: str, body: bytes) -> None:
    folder = results / "profile" / "fam" / variant
    folder.mkdir(parents=True, exist_ok=True)
    entry = {"size": 8, "result": 0, "status": "ok", "file": file}
    write_json(
        folder / "profile.json",
        {"family": "fam", "variant": variant, "status": "ok", "reports": [entry]},
    )
    (folder / file).write_bytes(body)


@pytest.fixture
def small_limit(monkeypatch):
    monkeypatch.setattr(recorder, "COMPRESS_BYTES", 4096)


def test_a_large_report_is_stored_compressed_and_found_by_its_name(
    tmp_path, small_limit
):
    results, rec = tmp_path / "results", tmp_path / "rec"
    _profile(results, "v0", "n8.ncu-rep", BIG)
    _profile(results, "v1", "n8.ncu-rep", b"small report")
    record(results, rec, "run")
    big = rec / "profile/fam/v0/n8.ncu-rep.xz"
    assert not (rec / "profile/fam/v0/n8.ncu-rep").exists()
    assert lzma.decompress(big.read_bytes()) == BIG
    assert (rec / "profile/fam/v1/n8.ncu-rep").read_bytes() == b"small report"
    meta = json.loads((rec / "profile/fam/v0/profile.json").read_text())
    assert meta["reports"][0]["file"] == "n8.ncu-rep"  # the record as measured
    _, reports = profile_reports(Tree(rec), PurePosixPath("profile/fam/v0"))
    assert list(reports) == [PurePosixPath("profile/fam/v0/n8.ncu-rep.xz")]
    assert ncu_limits.expanded(big).read_bytes() == BIG


def test_a_compressed_report_profiled_anew_is_superseded(tmp_path, small_limit):
    first, second, rec = tmp_path / "r1", tmp_path / "r2", tmp_path / "rec"
    _profile(first, "v0", "n8.ncu-rep", BIG)
    record(first, rec, "first")
    _profile(second, "v0", "n16.ncu-rep", b"small again")
    info = record(second, rec, "second", add=True)
    assert info["additions"][-1]["removed"] == ["profile/fam/v0/n8.ncu-rep.xz"]
    kept = rec / "superseded/1/profile/fam/v0/n8.ncu-rep.xz"
    assert lzma.decompress(kept.read_bytes()) == BIG  # nothing measured is lost


def test_an_xz_that_expands_past_the_report_limit_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(ncu_limits, "MAX_REPORT_BYTES", 1 << 20)
    bomb = tmp_path / "n8.ncu-rep.xz"
    bomb.write_bytes(lzma.compress(bytes(8 << 20)))  # 8 MiB of zeros in ~1 KiB
    assert bomb.stat().st_size < 4096
    with pytest.raises(ReportParseError, match=r"n8\.ncu-rep\.xz: .* over the 1 MiB"):
        ncu_limits.expanded(bomb)


def test_a_truncated_xz_is_refused_in_one_line(tmp_path):
    cut = tmp_path / "n8.ncu-rep.xz"
    cut.write_bytes(lzma.compress(BIG)[:200])
    with pytest.raises(ReportParseError, match="truncated xz stream; record it again"):
        ncu_limits.expanded(cut)
