"""A recording with additions replays exactly the reports its profile.json files name,
and keeps every report it ever held: those no longer named move to superseded/<n>/."""

import json
from pathlib import Path

from nsightflow.io import write_json
from nsightflow.machine.recording import record


def _profile(results: Path, variant: str, file: str) -> None:
    folder = results / "profile" / "fam" / variant
    folder.mkdir(parents=True, exist_ok=True)
    entry = {"size": 8, "result": 0, "status": "ok", "file": file}
    write_json(
        folder / "profile.json",
        {"family": "fam", "variant": variant, "status": "ok", "reports": [entry]},
    )
    (folder / file).parent.mkdir(parents=True, exist_ok=True)
    (folder / file).write_bytes(b"report")


def _live(rec: Path) -> list[str]:
    return sorted(
        str(p.relative_to(rec))
        for p in rec.rglob("*.ncu-rep")
        if p.relative_to(rec).parts[0] != "superseded"
    )


def test_re_profiling_a_family_supersedes_its_per_variant_reports(tmp_path):
    first, second, rec = tmp_path / "r1", tmp_path / "r2", tmp_path / "rec"
    for variant in ("v0", "v1"):
        _profile(first, variant, "n8.ncu-rep")  # one report per variant
    record(first, rec, "first")
    for variant in ("v0", "v1"):  # the family again, in one shared report
        _profile(second, variant, "../fam.0123abcd.ncu-rep")
    info = record(second, rec, "second", add=True)
    assert _live(rec) == ["profile/fam/fam.0123abcd.ncu-rep"]
    added = info["additions"][-1]
    assert sorted(added["removed"]) == [
        "profile/fam/v0/n8.ncu-rep",
        "profile/fam/v1/n8.ncu-rep",
    ]
    assert added["superseded"] == "superseded/1"
    for old in added["removed"] + added["replaced"]:  # nothing measured is lost
        assert (rec / "superseded/1" / old).is_file(), old
    meta = json.loads((rec / "profile/fam/v0/profile.json").read_text())
    assert meta["reports"][0]["file"] == "../fam.0123abcd.ncu-rep"


def test_a_shared_report_no_variant_names_any_more_is_superseded(tmp_path):
    first, second, rec = tmp_path / "r1", tmp_path / "r2", tmp_path / "rec"
    _profile(first, "v0", "../fam.aaaaaaaa.ncu-rep")
    record(first, rec, "first")
    _profile(second, "v0", "n8.ncu-rep")  # v0 profiled alone later
    info = record(second, rec, "second", add=True)
    assert _live(rec) == ["profile/fam/v0/n8.ncu-rep"]
    assert "profile/fam/fam.aaaaaaaa.ncu-rep" in info["additions"][-1]["removed"]
    kept = rec / "superseded/1/profile/fam/fam.aaaaaaaa.ncu-rep"
    assert kept.read_bytes() == b"report"
