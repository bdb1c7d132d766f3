"""``nsightflow record`` of untrusted or replayed results: nothing measured is lost,
nothing replayed is packed as measured, nothing outside the results folder is packed."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from cli_run import nsightflow

FAMILY = "vecadd"
V0 = "v0_one_per_thread"  # its part: launch 0 of the family report
OWN = "v4_triton"  # profiled alone: its own report, n16777216.ncu-rep


def _measured(recording: Path, results: Path, family: str = FAMILY) -> Path:
    """A results folder as a measuring run leaves it (copied from the recording)."""
    for stage in ("build", "verify", "time", "profile"):
        shutil.copytree(recording / stage / family, results / stage / family)
    return results


def _replayed(recording: Path, tmp_path: Path) -> Path:
    results = tmp_path / "replayed"
    proc = nsightflow(
        "replay-family", "--source", str(recording), "--family", FAMILY,
        "--results", str(results), "--no-sanitize", "--no-timeline",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return results


def _digests(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and p.name != "recording.json"
    }


def _one_line_error(proc) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "This is a bug" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    return line


def test_a_replay_is_not_recorded_as_a_measurement(recording, tmp_path):
    results = _replayed(recording, tmp_path)
    proc = nsightflow("record", "--results", str(results), "--out", str(tmp_path / "r"))
    line = _one_line_error(proc)
    assert "nothing measured to record" in line and "replayed from a recording" in line
    assert not (tmp_path / "r").exists()


def test_record_add_of_a_replay_keeps_every_measured_file(recording, tmp_path):
    """The recording lacks the Triton variant's own report: the replay marks it
    not_recorded; adding that replay back must neither delete the other reports (the
    family's shared one) nor replace a thing."""
    rec = tmp_path / "rec"
    _measured(recording, rec)
    shutil.copy(recording / "recording.json", rec)
    (rec / "profile" / FAMILY / OWN / "n16777216.ncu-rep").unlink()
    before = _digests(rec)
    results = _replayed(rec, tmp_path)
    proc = nsightflow("record", "--add", "--results", str(results), "--out", str(rec))
    assert "nothing measured to record" in _one_line_error(proc)
    assert _digests(rec) == before


def test_record_add_keeps_every_measured_file_it_replaces(recording, tmp_path):
    rec = tmp_path / "rec"
    _measured(recording, rec)
    _measured(recording, rec, "jacobi2d")
    shutil.copy(recording / "recording.json", rec)
    before = _digests(rec)
    later = _measured(recording, tmp_path / "later")  # vecadd measured again
    family = later / "profile" / FAMILY
    (old,) = family.glob(f"{FAMILY}.*.ncu-rep")
    new = old.with_name(f"{FAMILY}.again.ncu-rep")  # a new run's report: a new hash
    old.rename(new)
    for meta in family.glob("*/profile.json"):  # v0..v3 name the shared report
        data = json.loads(meta.read_text())
        for entry in data["reports"]:
            if entry.get("file") == f"../{old.name}":
                entry["file"] = f"../{new.name}"
        meta.write_text(json.dumps(data))
    proc = nsightflow("record", "--add", "--results", str(later), "--out", str(rec))
    assert proc.returncode == 0, proc.stderr
    additions = json.loads((rec / "recording.json").read_text())["additions"]
    keep = f"superseded/{len(additions)}"  # the addition's number
    assert additions[-1]["superseded"] == keep
    after = _digests(rec)
    for path, digest in before.items():  # every file: in place, or kept superseded
        assert digest in (after.get(path), after.get(f"{keep}/{path}")), path
    assert f"profile/{FAMILY}/{old.name}" in additions[-1]["removed"]
    assert f"{keep}/profile/{FAMILY}/{old.name}" in after
    assert f"profile/{FAMILY}/{new.name}" in after


@pytest.mark.parametrize("nested", ["same", "results_inside", "out_inside"])
def test_a_folder_is_not_recorded_into_itself(recording, tmp_path, nested):
    rec = tmp_path / "rec"
    _measured(recording, rec)
    shutil.copy(recording / "recording.json", rec)
    before = _digests(rec)
    results = {"same": rec, "results_inside": rec / "time", "out_inside": rec}[nested]
    out = rec / "sub" if nested == "out_inside" else rec
    args = ["record", "--results", str(results), "--out", str(out)]
    line = _one_line_error(nsightflow(*args, *(["--add"] if out == rec else [])))
    assert "cannot be recorded into itself" in line
    assert _digests(rec) == before


def test_links_in_results_are_not_followed_into_the_recording(recording, tmp_path):
    results = _measured(recording, tmp_path / "results")
    secret = tmp_path / "secret.txt"
    secret.write_text("do not send")
    folder = results / "profile" / FAMILY / V0
    (folder / "leak.ncu-rep").symlink_to(secret)
    (results / "time" / FAMILY / "v9_link.json").symlink_to(secret)
    (results / "verify" / FAMILY / "loop").symlink_to(".")
    (results / "time" / "elsewhere").symlink_to(tmp_path)
    proc = nsightflow("record", "--results", str(results), "--out", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    warned = [ln for ln in proc.stderr.splitlines() if ln.startswith("WARNING: ")]
    assert len(warned) == 4, proc.stderr
    rec = tmp_path / "r"
    assert not [p for p in rec.rglob("*") if p.is_symlink()]
    assert not any(
        "do not send" in p.read_text(errors="replace")
        for p in rec.rglob("*")
        if p.is_file()
    )
    left = json.loads((rec / "recording.json").read_text())["left_out"]
    assert len(left["refused"]) == 4 and left["replayed"] == 0


def test_a_refused_record_is_left_out_and_named(recording, tmp_path):
    results = _measured(recording, tmp_path / "results")
    relabelled = results / "time" / FAMILY / f"{V0}.json"
    shutil.copy(results / "time" / FAMILY / "v1_grid_stride.json", relabelled)
    proc = nsightflow("record", "--results", str(results), "--out", str(tmp_path / "r"))
    assert proc.returncode == 0, proc.stderr
    assert f"WARNING: not recorded: {relabelled}: field variant" in proc.stderr
    assert not (tmp_path / "r" / "time" / FAMILY / f"{V0}.json").exists()
    assert (tmp_path / "r" / "time" / FAMILY / "v1_grid_stride.json").is_file()
