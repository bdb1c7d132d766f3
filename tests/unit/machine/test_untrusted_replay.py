"""Replay of a tampered recording: a fault matrix, run as the workflow runs it.

Each row tampers with a copy of the bundled vecadd recording and runs
``nsightflow replay-family``. The run succeeds; the tampered output of that one
variant is ``not_recorded`` with a one-line warning naming the file (and the field);
nothing is read or written outside the recording and results/; no traceback.
"""

import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from nsightflow.cli import main

ROOT = Path(__file__).resolve().parents[3]
V0, V1 = "v0_one_per_thread", "v1_grid_stride"
REPORT = "n16777216.ncu-rep"


@pytest.fixture
def rec(recording, tmp_path):
    out = tmp_path / "rec"
    for stage in ("build", "verify", "time", "profile"):
        shutil.copytree(recording / stage / "vecadd", out / stage / "vecadd")
    shutil.copytree(recording / "profile/jacobi2d", out / "profile/jacobi2d")
    shutil.copy(recording / "recording.json", out)
    return out


def _replay(rec: Path, results: Path, capfd) -> tuple[int, str]:
    argv = ["replay-family", "--source", str(rec), "--family", "vecadd"]
    argv += ["--kernels-dir", str(ROOT / "kernels"), "--results", str(results)]
    code = main([*argv, "--no-sanitize", "--no-timeline"])
    return code, capfd.readouterr().err


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _profile_json(rec):
    return rec / "profile/vecadd" / V0 / "profile.json"


def _report_file(name):
    def tamper(rec):
        _edit(_profile_json(rec), lambda d: d["reports"][0].update(file=name))
        return _profile_json(rec), "profile", "reports.0.file"

    return tamper


def _leak_link(rec):
    (rec / "profile/vecadd" / V0 / "leak.ncu-rep").symlink_to("/etc/passwd")
    return rec / "profile/vecadd" / V0 / "leak.ncu-rep", "profile", ""


def _folder_link(rec):
    folder = rec / "profile/vecadd" / V0
    shutil.move(folder, rec.parent / "outside")
    folder.symlink_to(rec.parent / "outside")
    return folder, "profile", ""


def _loop(rec):
    (rec / "profile/vecadd" / V0 / "loop").symlink_to(".")
    return rec / "profile/vecadd" / V0 / "loop", "profile", ""


def _fifo(rec):
    os.mkfifo(rec / "profile/vecadd" / V0 / "pipe")
    return rec / "profile/vecadd" / V0 / "pipe", "profile", ""


def _shared(rec, family="vecadd"):
    """A family's report, which its variants' profile.json files name parts of."""
    (found,) = (rec / "profile" / family).glob(f"{family}.*.ncu-rep")
    return found


def _swap_variants(rec):
    """v0's part of the family report moved onto v1's launch (launch 1, vecadd_v1)."""
    _edit(_profile_json(rec), lambda d: d["reports"][0].update(first_action=1))
    return _shared(rec), "profile", ""


def _swap_families(rec):
    """jacobi2d's family report in vecadd's folder under a vecadd name, named by v0."""
    mine = rec / "profile/vecadd/vecadd.0123abcd.ncu-rep"
    shutil.copy(_shared(rec, "jacobi2d"), mine)
    change = {"file": f"../{mine.name}", "first_action": 0}
    _edit(_profile_json(rec), lambda d: d["reports"][0].update(change))
    return mine, "profile", ""


def _relabelled_time(rec):
    shutil.copy(rec / "time/vecadd" / f"{V1}.json", rec / "time/vecadd" / f"{V0}.json")
    return rec / "time/vecadd" / f"{V0}.json", "time", "variant"


def _time_row(key, value, field):
    def tamper(rec):
        _edit(
            rec / "time/vecadd" / f"{V0}.json",
            lambda d: d["rows"][2].update({key: value}),
        )
        return rec / "time/vecadd" / f"{V0}.json", "time", field

    return tamper


def _time_rows(value):
    def tamper(rec):
        _edit(rec / "time/vecadd" / f"{V0}.json", lambda d: d.update(rows=value))
        return rec / "time/vecadd" / f"{V0}.json", "time", "rows"

    return tamper


def _time_text(text):
    def tamper(rec):
        (rec / "time/vecadd" / f"{V0}.json").write_text(text)
        return rec / "time/vecadd" / f"{V0}.json", "time", ""

    return tamper


def _duplicate_size(rec):
    path = rec / "time/vecadd" / f"{V0}.json"
    _edit(path, lambda d: d["rows"].append(d["rows"][0]))
    return path, "time", "rows.4.size"


def _no_size(rec):
    path = rec / "time/vecadd" / f"{V0}.json"
    _edit(path, lambda d: d["rows"][0].pop("size"))
    return path, "time", "rows.0"


def _verify_other_family(rec):
    path = rec / "verify/vecadd" / f"{V0}.json"
    _edit(path, lambda d: d.update(family="jacobi2d"))
    return path, "verify", "family"


def _resources_nan(rec):
    path = rec / "build/vecadd" / f"{V0}.resources.json"
    _edit(path, lambda d: d["resources"].update(registers=-1))
    return path, None, "resources.registers"


CASES = {
    "dotdot": _report_file("../../../../x.ncu-rep"),
    "absolute": _report_file("/etc/hostname"),
    "other_variant_folder": _report_file(f"../{V1}/{REPORT}"),
    "other_family": _report_file("../../jacobi2d/v0_naive/n2048+8192.ncu-rep"),
    "file_link": _leak_link,
    "folder_link": _folder_link,
    "loop_link": _loop,
    "fifo": _fifo,
    "swapped_variants": _swap_variants,
    "swapped_families": _swap_families,
    "relabelled_time": _relabelled_time,
    "nan_median": _time_row("time_median_us", float("nan"), "rows.2.time_median_us"),
    "negative_median": _time_row("time_median_us", -3.0, "rows.2.time_median_us"),
    "huge_median": _time_row("time_median_us", 1e308, "rows.2.time_median_us"),
    "zero_median": _time_row("time_median_us", 0, "rows.2"),
    "string_size": _time_row("size", "big", "rows.2.size"),
    "duplicate_size": _duplicate_size,
    "no_size": _no_size,
    "rows_oops": _time_rows("oops"),
    "rows_null": _time_rows(None),
    "rows_object": _time_rows({}),
    "rows_strings": _time_rows(["a", "b"]),
    "empty_list": _time_text("[]"),
    "null": _time_text("null"),
    "truncated": _time_text('{"rows": ['),
    "verify_other_family": _verify_other_family,
    "resources_negative": _resources_nan,
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_tampered_file_leaves_its_variant_not_recorded(rec, tmp_path, capfd, case):
    named, stage, field = CASES[case](rec)
    results = tmp_path / "results"
    before = set((tmp_path).rglob("*"))
    code, err = _replay(rec, results, capfd)
    assert code == 0, err
    assert "Traceback" not in err and "This is a bug" not in err
    warnings = [line for line in err.splitlines() if line.startswith("WARNING: ")]
    assert len(warnings) == 1, err
    assert warnings[0].startswith(f"WARNING: {named}: "), warnings[0]
    if field:
        assert f": field {field}" in warnings[0], warnings[0]
    if stage is not None:
        out = results / stage / "vecadd" / (V0 if stage == "profile" else f"{V0}.json")
        record = json.loads(
            (out / "profile.json" if stage == "profile" else out).read_text()
        )
        assert record["status"] == "not_recorded"
        assert record["message"] == warnings[0].removeprefix("WARNING: ")
    other = json.loads((results / "time/vecadd" / f"{V1}.json").read_text())
    assert other["status"] == "ok" and other["rows"]  # the others replay as recorded
    created = {p for p in tmp_path.rglob("*") if p not in before}
    assert all(results in p.parents or p == results for p in created), created
    copied = [p for p in results.rglob("*") if p.is_symlink()]
    assert not copied
    assert "root:" not in "".join(
        p.read_text(errors="replace") for p in results.rglob("*") if p.is_file()
    )


def test_the_untampered_recording_replays_without_a_warning(rec, tmp_path, capfd):
    code, err = _replay(rec, tmp_path / "results", capfd)
    assert code == 0 and "WARNING" not in err
    shared = _shared(rec).relative_to(rec)  # v0..v3's report, copied once
    own = Path("profile/vecadd/v4_triton", REPORT)  # the Triton variant's own
    for recorded in (shared, own):
        copied = tmp_path / "results" / recorded
        assert copied.read_bytes() == (rec / recorded).read_bytes(), recorded


def test_a_full_disk_during_replay_says_so_in_one_line_as_parse_does(
    rec, tmp_path, capfd, monkeypatch
):
    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(shutil, "copyfileobj", full)
    code, err = _replay(rec, tmp_path / "results", capfd)
    assert code == 2
    (line,) = err.strip().splitlines()
    assert line.startswith(f"ERROR: {tmp_path / 'results/profile/vecadd'}")
    replay_words = line.split(": ", 2)[2]
    # parse's table writer meets the same full disk
    import pandas as pd

    def full_table(self, path, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full_table)
    report = rec / "profile/vecadd" / V0
    assert main(["parse", str(report), "-o", str(tmp_path / "m.csv")]) == 2
    (parse_line,) = capfd.readouterr().err.strip().splitlines()
    assert parse_line.split(": ", 2)[2] == replay_words
    assert "no space left on the device" in replay_words
