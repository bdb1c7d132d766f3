"""The reader of recordings and run folders (nsightflow.untrusted): a fault matrix.

Each row tampers with a copy of a real recorded file and names the field the one-line
refusal must name; the untampered files of the bundled recording all pass.
"""

import json
import os
import shutil
from pathlib import Path, PurePosixPath

import pytest

from nsightflow.untrusted import (
    MissingRecord,
    RecordError,
    Tree,
    check_table,
    identify,
    profile_reports,
    read_record,
)

ROOT = Path(__file__).resolve().parents[3]
TIME = "time/jacobi2d/v0_naive.json"
PROFILE = "profile/jacobi2d/v0_naive"


@pytest.fixture
def rec(recording, tmp_path):
    """A copy of jacobi2d's recorded time and profile outputs."""
    out = tmp_path / "rec"
    for sub in ("time/jacobi2d", "profile/jacobi2d", "timeline/jacobi2d"):
        shutil.copytree(recording / sub, out / sub)
    return out


def _shared(rec) -> Path:
    """The jacobi2d family's report, which each variant's profile.json names a part of."""
    (found,) = (rec / "profile/jacobi2d").glob("jacobi2d.*.ncu-rep")
    return found


def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def _row(key, value):
    def change(data):
        data["rows"][1][key] = value

    return change


def _set(key, value):
    def change(data):
        data[key] = value

    return change


def _duplicate_row(data):
    data["rows"].append(dict(data["rows"][0]))


def _drop_size(data):
    del data["rows"][0]["size"]


NAN = float("nan")
# (tampering, field named, words of the problem)
TIME_FAULTS = {
    "nan_median": (_row("time_median_us", NAN), "rows.1.time_median_us", "finite"),
    "inf_median": (_row("time_median_us", float("inf")), "rows.1", ""),
    "negative_q1": (_row("time_q1_us", -200.0), "rows.1.time_q1_us", "minimum"),
    "huge_median": (_row("time_median_us", 1e308), "rows.1.time_median_us", ""),
    "zero_median": (_row("time_median_us", 0.0), "rows.1", ""),
    "string_median": (_row("time_median_us", "12"), "rows.1.time_median_us", "type"),
    "size_string": (_row("size", "2048"), "rows.1.size", "type"),
    "size_float": (_row("size", 2048.5), "rows.1.size", "type"),
    "size_zero": (_row("size", 0), "rows.1.size", "minimum"),
    "size_negative": (_row("size", -4), "rows.1.size", "minimum"),
    "size_bool": (_row("size", True), "rows.1.size", "type"),
    "size_huge": (_row("size", 10**30), "rows.1.size", "maximum"),
    "size_missing": (_drop_size, "rows.0", "'size' is a required property"),
    "duplicate_size": (_duplicate_row, "rows.", "repeats item 0"),
    "quartiles_swapped": (_row("time_q1_us", 1e6), "rows.1", "out of order"),
    "reps_zero": (_row("reps", 0), "rows.1.reps", "minimum"),
    "samples_words": (_row("samples_ns", "1 nan 2"), "rows.1.samples_ns", ""),
    "samples_negative": (_row("samples_ns", "-5 3"), "rows.1.samples_ns", ""),
    "status_unknown": (_row("status", "great"), "rows.1.status", ""),
    "rows_string": (_set("rows", "oops"), "rows", "not of type 'array'"),
    "rows_null": (_set("rows", None), "rows", "not of type"),
    "rows_object": (_set("rows", {}), "rows", "not of type"),
    "row_list": (_set("rows", [[1, 2]]), "rows.0", "not of type 'object'"),
    "relabelled_variant": (_set("variant", "v1_smem"), "variant", "another variant"),
    "relabelled_family": (_set("family", "sgemm"), "family", "another family"),
    "no_family": (lambda d: d.pop("family"), "", "'family' is a required property"),
    "schema_version": (_set("schema_version", 7), "schema_version", "expected 1"),
}


@pytest.mark.parametrize("case", sorted(TIME_FAULTS))
def test_a_tampered_time_record_is_refused_naming_file_and_field(rec, case):
    change, field, words = TIME_FAULTS[case]
    _edit(rec / TIME, change)
    with pytest.raises(RecordError) as info:
        read_record(Tree(rec), TIME)
    message = str(info.value)
    assert message.startswith(f"{rec / TIME}: ")
    assert "\n" not in message
    assert info.value.field.startswith(field), message
    assert words in message


@pytest.mark.parametrize(
    ("raw", "words"),
    [
        (b"[]", "holds a JSON list, not an object"),
        (b"null", "holds a JSON null, not an object"),
        (b'"text"', "holds a JSON string"),
        (b"", "not valid JSON (line 1, column 1"),
        (b'{"a": ', "not valid JSON"),
        (b"\xff\xfe{}", "cannot be read"),
        (b"[" * 100_000 + b"]" * 100_000, "not valid JSON"),  # nested past recursion
        (b'{"a": ' + b"9" * 5000 + b"}", "not valid JSON"),  # past int's digit limit
    ],
)
def test_a_file_that_is_not_a_json_object_is_refused(rec, raw, words):
    (rec / TIME).write_bytes(raw)
    with pytest.raises(RecordError, match=r"^\S+v0_naive\.json: ") as info:
        read_record(Tree(rec), TIME)
    assert words in str(info.value)


def test_every_file_of_the_bundled_recording_passes(recording):
    tree, read = Tree(recording), 0
    for rel, what in tree.walk():
        assert what == "file", rel
        where = identify(rel)
        if where is None:
            continue
        if where.kind == "timeline_table":
            check_table(tree.read_bytes(rel, 1 << 30), tree.path(rel), where)
        elif where.kind == "profile":
            profile_reports(tree, rel.parent, where)
        else:
            read_record(tree, rel)
        read += 1
    assert read > 250


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("../../../../x.ncu-rep", "leads out of"),
        ("../../sgemm/sgemm.0123.ncu-rep", "leads out of"),
        ("/etc/hostname", "is absolute"),
        ("../v1_smem/n2048+8192.ncu-rep", "not a report of this variant"),
        ("../other.ncu-rep", "not a report of this variant"),
        ("profile.json", "not a report of this variant"),
        ("C:\\x.ncu-rep", "backslash or a drive"),
        ("a\0b.ncu-rep", "NUL"),
        (" ", "not a relative path"),
        (7, "not of type 'string'"),
        ("nowhere.ncu-rep", "which is not there"),
    ],
)
def test_a_report_named_outside_its_folder_is_refused(rec, name, words):
    meta = rec / PROFILE / "profile.json"
    _edit(meta, lambda d: d["reports"][0].update(file=name))
    with pytest.raises(RecordError) as info:
        profile_reports(Tree(rec), PurePosixPath(PROFILE))
    assert str(info.value).startswith(f"{meta}: field reports.0.file: ")
    assert words in str(info.value)


def test_a_shared_family_report_beside_the_folder_is_read(rec):
    folder = rec / PROFILE
    _shared(rec).rename(rec / "profile/jacobi2d/jacobi2d.ab.ncu-rep")
    _edit(
        folder / "profile.json",
        lambda d: [e.update(file="../jacobi2d.ab.ncu-rep") for e in d["reports"]],
    )
    _, reports = profile_reports(Tree(rec), PurePosixPath(PROFILE))
    assert list(reports) == [PurePosixPath("profile/jacobi2d/jacobi2d.ab.ncu-rep")]


def _link_file(rec):
    report = _shared(rec)  # the report v0's profile.json names
    report.unlink()
    report.symlink_to("/etc/passwd")
    return report


def _link_folder(rec):
    folder = rec / PROFILE
    shutil.move(folder, rec / "elsewhere")
    folder.symlink_to(rec / "elsewhere")
    return folder


def _link_loop(rec):
    loop = rec / "profile/jacobi2d/v0_naive"
    shutil.rmtree(loop)
    loop.symlink_to(".")
    return loop


def _link_parent(rec):
    family = rec / "profile/jacobi2d"
    shutil.move(family, rec / "fam")
    family.symlink_to(rec / "fam")
    return family


@pytest.mark.parametrize(
    "make",
    [_link_file, _link_folder, _link_loop, _link_parent],
    ids=lambda f: f.__name__,
)
def test_no_symbolic_link_is_followed(rec, make):
    link = make(rec)
    with pytest.raises(RecordError) as info:
        profile_reports(Tree(rec), PurePosixPath(PROFILE))
    assert str(info.value).startswith(f"{link}: is a symbolic link")
    walked = {str(k): v for k, v in Tree(rec).walk()}
    assert walked[link.relative_to(rec).as_posix()] == "link"


def test_the_walk_reports_links_and_specials_without_entering_them(rec):
    (rec / "time/jacobi2d/loop").symlink_to(".")
    os.mkfifo(rec / "time/jacobi2d/pipe.json")
    walked = {str(k): v for k, v in Tree(rec).walk("time")}
    assert walked["time/jacobi2d/loop"] == "link"
    assert walked["time/jacobi2d/pipe.json"] == "special"
    assert not any(k.startswith("time/jacobi2d/loop/") for k in walked)
    with pytest.raises(RecordError, match="not a regular file"):
        read_record(Tree(rec), "time/jacobi2d/pipe.json")  # and does not block


def test_a_missing_record_is_its_own_refusal(rec):
    with pytest.raises(MissingRecord, match="missing from the recording"):
        read_record(Tree(rec), "time/jacobi2d/v9_new.json")
    with pytest.raises(MissingRecord):
        read_record(Tree(rec / "nowhere"), "recording.json")


@pytest.mark.parametrize("rel", ["../x.json", "time/../../x.json", "/etc/hostname"])
def test_a_path_out_of_the_tree_is_refused_before_it_is_opened(rec, rel):
    with pytest.raises(RecordError, match="leads out of"):
        read_record(Tree(rec), rel)


def test_a_copy_is_never_written_through_a_link_it_met(rec, tmp_path):
    link = _link_file(rec)
    target = tmp_path / "out.ncu-rep"
    with pytest.raises(RecordError):
        Tree(rec).copy(f"profile/jacobi2d/{link.name}", target)
    assert not target.exists()


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("jacobi2d,v1_smem,2048,kernel,k,0,1,0,7", "variant"),
        ("sgemm,v0_naive,2048,kernel,k,0,1,0,7", "family"),
        ("jacobi2d,v0_naive,-1,kernel,k,0,1,0,7", "size"),
        ("jacobi2d,v0_naive,2048,kernel", ""),
        ("jacobi2d,v0_naive,2048,kernel,k,-5,1,0,7", "start_ns"),
        ("jacobi2d,v0_naive,2048,kernel,k,9,1,0,7", "end_ns"),
        ("jacobi2d,v0_naive,2048,kernel,k,0,1,nan,7", "bytes"),
    ],
)
def test_a_relabelled_or_broken_timeline_table_is_refused(rec, line, field):
    table = rec / "timeline/jacobi2d/v0_naive.csv"
    table.write_text(table.read_text() + line + "\n")
    where = identify(PurePosixPath("timeline/jacobi2d/v0_naive.csv"))
    assert where is not None
    with pytest.raises(RecordError) as info:
        check_table(table.read_bytes(), table, where)
    assert info.value.field == field


@pytest.mark.parametrize(
    ("account", "field"),
    [
        ({"additions": "oops"}, "additions"),
        ({"additions": [{"folders": "time/x"}]}, "additions.0.folders"),
        ({"families": [1, 2]}, "families.0"),
        ({"gpu": ["H200"]}, "gpu"),
    ],
)
def test_a_malformed_recording_account_is_refused_naming_the_field(
    tmp_path, monkeypatch, account, field
):
    from nsightflow.machine.recording import choose_mode

    monkeypatch.delenv("NSIGHTFLOW_MODE", raising=False)
    (tmp_path / "recording.json").write_text(json.dumps(account))
    with pytest.raises(RecordError) as info:
        choose_mode("replay", tmp_path)
    assert info.value.field == field
    assert str(info.value).startswith(f"{tmp_path / 'recording.json'}: field {field}")
