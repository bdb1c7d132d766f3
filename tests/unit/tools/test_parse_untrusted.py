"""``nsightflow parse`` of a tampered profile folder: it reads nothing outside the
folder, follows no link, and refuses a report of another variant's kernels."""

import json
import shutil

import pandas as pd
import pytest

from cli_run import nsightflow

FOLDER = "profile/vecadd/v0_one_per_thread"  # its part: launch 0 of the family report
REPORT = "n16777216.ncu-rep"
OWN = "profile/vecadd/v4_triton/" + REPORT  # the Triton variant's own report


@pytest.fixture
def profiles(recording, tmp_path):
    out = tmp_path / "rec"
    shutil.copytree(recording / "profile/vecadd", out / "profile/vecadd")
    return out


def _shared(profiles):
    """The vecadd family's report, which v0..v3's profile.json files name."""
    (found,) = (profiles / "profile/vecadd").glob("vecadd.*.ncu-rep")
    return found


def _name_report(profiles, name):
    meta = profiles / FOLDER / "profile.json"
    data = json.loads(meta.read_text())
    data["reports"][0]["file"] = name
    meta.write_text(json.dumps(data))
    return meta


def _one_line_error(proc) -> str:
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "This is a bug" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    return line


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("../../../../outside.ncu-rep", "leads out of"),
        ("/etc/hostname", "is absolute"),
        ("../v4_triton/" + REPORT, "not a report of this variant"),
    ],
)
def test_a_report_named_outside_its_folder_is_not_read(profiles, tmp_path, name, words):
    (tmp_path / "outside.ncu-rep").write_bytes(_shared(profiles).read_bytes())
    meta = _name_report(profiles, name)
    proc = nsightflow("parse", str(profiles / FOLDER), "-o", str(tmp_path / "m.csv"))
    line = _one_line_error(proc)
    assert line.startswith(f"ERROR: {meta}: field reports.0.file: ") and words in line
    assert not (tmp_path / "m.csv").exists()


def test_a_link_in_a_plain_folder_is_not_followed(profiles, tmp_path):
    folder = tmp_path / "plain"
    folder.mkdir()
    shutil.copy(_shared(profiles), folder / REPORT)
    (folder / "leak.ncu-rep").symlink_to("/etc/passwd")
    proc = nsightflow("parse", str(folder), "-o", str(tmp_path / "m.csv"))
    line = _one_line_error(proc)
    assert line.startswith(f"ERROR: {folder / 'leak.ncu-rep'}: is a symbolic link")


def test_a_report_of_another_variant_is_refused_naming_its_kernel(profiles, tmp_path):
    # the Triton variant's report copied over the family report v0 names: its
    # launch 0 is of vecadd_triton, not one of the kernels the family run profiled
    shared = _shared(profiles)
    shutil.copy(profiles / OWN, shared)
    out = tmp_path / "m.csv"
    line = _one_line_error(nsightflow("parse", str(profiles / FOLDER), "-o", str(out)))
    assert "'vecadd_triton'" in line and "vecadd_v0" in line and shared.name in line
    rules = tmp_path / "r.csv"
    proc = nsightflow(
        "parse", str(profiles / FOLDER), "-o", str(out), "--rules", str(rules),
        "--keep-going",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert pd.read_csv(out).empty  # none of Triton's metrics labelled as v0's
    shown = pd.read_csv(rules)
    assert list(shown["rule"]) == ["ReportUnreadable"]
    assert "another variant's" in shown["message"].iloc[0]
