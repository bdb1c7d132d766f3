"""The output guard: what a writer may write, remove and write through."""

import json
import os
import threading
from pathlib import Path

import pytest

from nsightflow.errors import OutputRefusedError
from nsightflow.io import write_json
from nsightflow.outputs import (
    PROFILE_FILES,
    Output,
    check_no_link,
    check_output,
    remove_own,
    write_atomic,
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project root (holding .git) with a recording and kernels; the cwd."""
    root = tmp_path / "proj"
    for folder in (".git", "kernels/fam", "rec/time/fam", "results"):
        (root / folder).mkdir(parents=True)
    (root / "rec/recording.json").write_text("{}")
    monkeypatch.chdir(root)
    return root


def _refusal(path: Path, folder: bool = True, inputs=None) -> str:
    read = inputs if inputs is not None else [("the recording", Path("rec"))]
    out = Output("stage", "--out", path, folder=folder, fix="choose another")
    with pytest.raises(OutputRefusedError) as info:
        check_output(out, read)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"stage: --out {path} ") and message.endswith(
        "; choose another"
    )
    return message


@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("rec", "is the recording rec"),
        ("rec/time", "lies inside the recording rec"),
        ("rec/time/fam/new", "lies inside the recording rec"),
        (".", "holds the recording rec"),
        ("..", "holds the recording rec"),
    ],
)
def test_a_folder_that_is_inside_or_holds_an_input_is_refused(project, out, words):
    assert words in _refusal(Path(out))


def test_the_repository_is_refused_as_an_output_folder_even_with_no_input(project):
    message = _refusal(project, inputs=[])
    assert f"is the repository {project} (it holds .git)" in message
    assert f"holds the repository {project}" in _refusal(project.parent, inputs=[])


def test_nothing_may_be_written_inside_git(project):
    message = _refusal(Path(".git/hooks/pre-commit"), folder=False, inputs=[])
    assert "lies inside the repository's" in message


def test_a_folder_holding_git_elsewhere_is_refused(tmp_path):
    other = tmp_path / "clone"
    (other / ".git").mkdir(parents=True)
    assert "holds a repository (.git)" in _refusal(other, inputs=[])


def test_a_link_to_an_input_is_that_input(project):
    (project / "results/alias").symlink_to(project / "rec")
    assert "is the recording rec" in _refusal(Path("results/alias"))


def test_a_file_output_may_sit_beside_inputs_but_not_over_one(project):
    recorded = Path("rec/time/fam/v0.json")
    recorded.write_text("{}")
    inputs = [("the recorded file", recorded)]
    check_output(Output("replay", "OUTPUT", Path("v0.json"), folder=False), inputs)
    assert "is the recorded file" in _refusal(recorded, folder=False, inputs=inputs)


@pytest.mark.parametrize("folder", [True, False])
def test_a_file_where_a_folder_belongs_and_back_is_refused(project, folder):
    path = Path("results/x")
    if folder:
        path.write_text("a file")
        assert "is a file, not a folder" in _refusal(path, inputs=[])
    else:
        path.mkdir()
        assert "is a folder, not a file" in _refusal(path, folder=False, inputs=[])


def test_a_results_folder_apart_from_the_inputs_is_accepted(project):
    check_output(Output("s", "--out", Path("results/new")), [("rec", Path("rec"))])
    assert not Path("results/new").exists()  # the check writes nothing


def test_a_write_through_a_link_below_the_output_is_refused(tmp_path):
    out, elsewhere = tmp_path / "rec", tmp_path / "elsewhere"
    (out / "time").mkdir(parents=True)
    elsewhere.mkdir()
    (out / "time" / "fam").symlink_to(elsewhere)
    with pytest.raises(OutputRefusedError, match=r"fam is a symbolic link"):
        check_no_link(out, out / "time/fam/v0.json", "record: --out")
    check_no_link(out, out / "time/other/v0.json")  # missing parts: fine
    link_root = tmp_path / "alias"
    link_root.symlink_to(out)  # the root the user named may be a link
    check_no_link(link_root, link_root / "time/x.json")


def test_remove_own_removes_only_a_folder_of_the_stage_s_own_files(tmp_path):
    folder = tmp_path / "v0"
    folder.mkdir()
    for name in ("n1024.ncu-rep", "profile.json", ".spec.json", ".x.json.ab12.part"):
        (folder / name).write_text("x")
    remove_own(folder, PROFILE_FILES, "profile: --out-dir")
    assert not folder.exists()
    remove_own(folder, PROFILE_FILES, "profile: --out-dir")  # missing: fine


@pytest.mark.parametrize("foreign", ["notes.txt", "sub/", "link"])
def test_remove_own_refuses_a_folder_holding_anything_else(tmp_path, foreign):
    folder = tmp_path / "v0"
    folder.mkdir()
    (folder / "profile.json").write_text("{}")
    if foreign == "sub/":
        (folder / "sub").mkdir()
    elif foreign == "link":
        (folder / "link").symlink_to(tmp_path)
    else:
        (folder / foreign).write_text("mine")
    before = sorted(os.listdir(folder))
    with pytest.raises(OutputRefusedError, match=r"which this command does not write"):
        remove_own(folder, PROFILE_FILES, "replay")
    assert sorted(os.listdir(folder)) == before


def test_remove_own_never_removes_through_a_linked_folder(tmp_path):
    target = tmp_path / "precious"
    target.mkdir()
    (target / "profile.json").write_text("{}")
    (tmp_path / "v0").symlink_to(target)
    with pytest.raises(OutputRefusedError, match=r"is a symbolic link"):
        remove_own(tmp_path / "v0", PROFILE_FILES, "replay")
    assert (target / "profile.json").is_file()


def test_two_writers_of_one_file_never_share_a_temporary_file(tmp_path):
    """The fixed <name>.tmp let one writer rename the other's half-written file."""
    path = tmp_path / "time/fam/v0.json"
    errors: list[BaseException] = []

    def write(k: int) -> None:
        try:
            for i in range(200):
                write_json(path, {"writer": k, "i": i, "pad": "x" * 20_000})
        except BaseException as exc:  # kept for the assertion below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert json.loads(path.read_text())["i"] == 199  # whole, from some writer
    assert sorted(os.listdir(path.parent)) == ["v0.json"]  # no temporary left


def test_a_written_file_gets_the_umask_s_mode_and_replaces_a_link_not_its_target(
    tmp_path,
):
    target = tmp_path / "precious.txt"
    target.write_text("keep")
    link = tmp_path / "out.json"
    link.symlink_to(target)
    write_atomic(link, b"new")
    assert target.read_text() == "keep" and not link.is_symlink()
    mask = os.umask(0)
    os.umask(mask)
    assert link.stat().st_mode & 0o777 == 0o666 & ~mask
