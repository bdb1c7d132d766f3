"""Every writer pointed at what it reads: refused in one line, nothing written or deleted.

A copy of a project (``.git``, ``kernels/vecadd``, a recording ``rec`` of vecadd, a
results folder) is the working directory. Each case runs one command (or API call)
whose output is the project's root, the recording, a folder or file inside
``kernels``, or a link to one of them, and checks that the command exits 2 with one
``ERROR:`` line naming the option, and that every file, folder and link of the
project is as it was (hashed before and after).
"""

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from nsightflow.cli import main
from nsightflow.errors import ManifestError, OutputRefusedError, StageInputError

ROOT = Path(__file__).resolve().parents[3]
FAMILY = "vecadd"
V0 = "v0_one_per_thread"
PROFILE = f"profile/{FAMILY}/{V0}"  # its part of the family's shared report


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "proj"
    (root / ".git").mkdir(parents=True)
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    shutil.copytree(ROOT / "kernels" / FAMILY, root / "kernels" / FAMILY)
    rec, source = root / "rec", ROOT / "examples" / "h200"
    for stage in ("build", "verify", "time", "profile"):
        shutil.copytree(source / stage / FAMILY, rec / stage / FAMILY)
    for name in ("recording.json", "ceilings.json"):
        shutil.copy(source / name, rec / name)
    (root / "results" / "time").mkdir(parents=True)
    (root / "results" / "time" / "measured.json").write_text('{"keep": 1}')
    (root / "docs").mkdir()
    (root / "docs" / "notes.md").write_text("mine")
    monkeypatch.chdir(root)
    return root


def _tree(root: Path) -> dict[str, str]:
    """Every entry below ``root``, links not followed: its kind and content hash."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            rel = str(path.relative_to(root))
            if path.is_symlink():
                found[rel] = f"link {os.readlink(path)}"
            elif path.is_dir():
                found[rel] = "dir"
            else:
                found[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _refused(capfd, root: Path, *argv: str) -> str:
    """Run the command; it exits 2 in one line and the tree is as it was."""
    before = _tree(root)
    code = main(list(argv))
    err = capfd.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err and "bug in nsightflow" not in err
    (line,) = err.strip().splitlines()
    assert line.startswith("ERROR: ")
    assert _tree(root) == before
    return line


REFERENCE = ["reference", "--family", FAMILY, "--kernels-dir", "kernels", "--out"]


@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("index.json", "--out's folder . holds the kernels folder"),
        (f"kernels/{FAMILY}/index.json", "lies inside the kernels folder"),
        ("kernels", "is a folder, not a file"),
    ],
)
def test_reference_never_writes_or_cleans_around_the_kernels(
    project, capfd, out, words
):
    line = _refused(capfd, project, *REFERENCE, out)
    assert line.startswith("ERROR: reference: --out") and words in line


def test_reference_in_a_root_without_kernels_is_refused_as_the_repository(
    project, capfd, tmp_path
):
    kernels = tmp_path / "kernels"
    shutil.move(project / "kernels", kernels)
    argv = ["reference", "--family", FAMILY, "--kernels-dir", str(kernels), "--out"]
    line = _refused(capfd, project, *argv, "index.json")
    assert f"is the repository {project} (it holds .git)" in line


def test_reference_cleanup_removes_only_its_own_stale_entries(project):
    """``prefill`` beside results/time: before, every other folder was deleted."""
    from nsightflow.family.reference_cache import prefill
    from nsightflow.family.registry import load_family

    root = project / "results"
    stale = root / "16-0123456789abcdef0123"
    stale.mkdir()
    (stale / "entry.json").write_text("{}")
    lookalike = root / "32-0123456789abcdef0123"  # no entry.json: not the cache's
    lookalike.mkdir()
    family = load_family(project / "kernels" / FAMILY)
    assert prefill(root, family, 408, [], 1) == []
    assert not stale.exists() and lookalike.is_dir()
    assert (root / "time" / "measured.json").read_text() == '{"keep": 1}'


@pytest.mark.parametrize(
    ("results", "words"),
    [
        ("rec", "is the recording rec"),
        ("rec/time", "lies inside the recording rec"),
        (".", "holds the recording rec"),
        ("kernels", "is the kernels folder"),
        ("kernels/out", "lies inside the kernels folder"),
        ("alias", "is the recording rec"),  # a link to the recording
    ],
)
def test_replay_family_never_writes_into_the_recording(project, capfd, results, words):
    (project / "alias").symlink_to(project / "rec")
    argv = ["replay-family", "--source", "rec", "--family", FAMILY]
    line = _refused(capfd, project, *argv, "--results", results)
    assert line.startswith(f"ERROR: replay-family: --results {results} ")
    assert words in line


@pytest.mark.parametrize(
    "link", ["time", f"profile/{FAMILY}", f"time/{FAMILY}/{V0}.json"]
)
def test_replay_family_never_writes_through_a_link_in_results(project, capfd, link):
    elsewhere = project / "elsewhere"
    elsewhere.mkdir()
    target = project / "results" / link
    target.parent.mkdir(parents=True, exist_ok=True)
    if target.exists():
        shutil.rmtree(target)
    target.symlink_to(elsewhere)
    argv = ["replay-family", "--source", "rec", "--family", FAMILY]
    line = _refused(capfd, project, *argv, "--results", "results")
    assert f"results/{link} is a symbolic link" in line
    assert not list(elsewhere.iterdir())


def test_replay_family_from_a_missing_recording_is_an_error(project, capfd):
    argv = ["replay-family", "--source", "/nonexistent", "--family", FAMILY]
    line = _refused(capfd, project, *argv, "--results", "results")
    assert "--source /nonexistent: no such folder" in line


def test_replay_of_a_file_onto_itself_is_refused(project, capfd):
    recorded = f"rec/time/{FAMILY}/{V0}.json"
    line = _refused(capfd, project, "replay", recorded, recorded)
    assert "is the recorded file" in line


def test_replay_never_removes_a_profile_folder_holding_other_files(project, capfd):
    out = project / "results" / "profile" / FAMILY / V0
    out.mkdir(parents=True)
    (out / "my_notes.txt").write_text("mine")
    line = _refused(capfd, project, "replay", f"rec/profile/{FAMILY}/{V0}", str(out))
    assert "holds my_notes.txt, which this command does not write" in line


def test_replay_replaces_a_profile_folder_of_its_own(project, capfd):
    out = project / "results" / "profile" / FAMILY / V0
    assert main(["replay", f"rec/profile/{FAMILY}/{V0}", str(out)]) == 0
    (out / "profile.json").write_text("{}")  # an older replay's record
    assert main(["replay", f"rec/profile/{FAMILY}/{V0}", str(out)]) == 0
    assert json.loads((out / "profile.json").read_text())["variant"] == V0


@pytest.mark.parametrize(
    ("out", "words"),
    [
        ("docs/notes.md", "is a file, not a folder"),
        ("rec/cmp", "lies inside the input rec"),
        (".", "holds the kernels folder"),
    ],
)
def test_compare_never_writes_over_or_into_what_it_reads(project, capfd, out, words):
    (project / "b").mkdir()
    argv = ["compare", "rec", "b", "--kernels-dir", "kernels", "-o", out]
    line = _refused(capfd, project, *argv)
    assert line.startswith(f"ERROR: compare: -o {out} ") and words in line


def test_api_compare_checks_out_dir_as_the_command_does(project):
    from nsightflow.api import compare

    before = _tree(project)
    with pytest.raises(OutputRefusedError, match=r"^compare: out_dir rec/x lies "):
        compare(Path("rec"), Path("rec"), out_dir=Path("rec/x"))
    assert _tree(project) == before


def test_record_never_records_into_the_repository(project, capfd, tmp_path_factory):
    run = tmp_path_factory.mktemp("run")  # apart from the project and its parent
    shutil.copytree(project / "rec" / "time", run / "time")
    line = _refused(capfd, project, "record", "--results", str(run), "--out", "..")
    assert "ERROR: record: --out .. holds the repository" in line


@pytest.mark.parametrize("link", ["time", f"profile/{FAMILY}", "superseded"])
def test_record_add_refuses_a_recording_holding_a_link(project, capfd, link):
    results = project / "run"
    for stage in ("build", "verify", "time", "profile"):
        shutil.copytree(project / "rec" / stage / FAMILY, results / stage / FAMILY)
    elsewhere = project / "elsewhere"
    rec = project / "rec"
    if link == "superseded":
        elsewhere.mkdir()
    else:
        shutil.move(rec / link, elsewhere)
    (rec / link).symlink_to(elsewhere)
    argv = ["record", "--results", "run", "--out", "rec", "--add"]
    line = _refused(capfd, project, *argv)
    assert f"{rec / link} is a symbolic link" in line or f"rec/{link} is a" in line


def test_parse_never_writes_into_the_recording_it_reads(project, capfd):
    line = _refused(capfd, project, "parse", f"rec/{PROFILE}", "-o", "rec/m.csv")
    assert "ERROR: parse: -o rec/m.csv lies inside the recording" in line


def test_profile_never_removes_a_variant_folder_holding_other_files(project, capfd):
    out = project / "results" / "profile" / FAMILY
    (out / V0).mkdir(parents=True)
    (out / V0 / "analysis.ipynb").write_text("mine")
    argv = ["profile", "--kernels-dir", "kernels", "--family", FAMILY]
    argv += ["--variant", V0, "--cubin", "x.cubin", "--verify", "x.json"]
    line = _refused(capfd, project, *argv, "--out-dir", str(out))
    assert "holds analysis.ipynb, which this command does not write" in line


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            [
                "analyze",
                "--kernels-dir",
                "kernels",
                "--family",
                FAMILY,
                "--out-dir",
                ".",
            ],
            "holds the kernels folder kernels",
        ),
        (
            [
                *("verify", "--kernels-dir", "kernels", "--family", FAMILY),
                *("--variant", V0, "--cubin", "x.cubin", "--resources", "r.json"),
                *("--out", f"kernels/{FAMILY}/{V0}.cu"),
            ],
            "lies inside the kernels folder",
        ),
        (
            ["ceilings", "--out", ".git/config"],
            "lies inside the repository's",
        ),
        (
            ["ceilings", "--out", f"kernels/{FAMILY}/family.yaml"],
            "lies inside the kernels folder kernels",
        ),
    ],
)
def test_any_stage_s_output_is_checked_before_it_runs(project, capfd, argv, words):
    try:
        line = _refused(capfd, project, *argv)
    except SystemExit:  # the stage's options changed: the case needs updating
        pytest.fail(f"argparse refused {argv}")
    assert words in line


def test_api_replay_checks_its_arguments_before_writing(project):
    from nsightflow.api import replay

    kernels, rec = Path("kernels"), Path("rec")
    before = _tree(project)
    with pytest.raises(OutputRefusedError, match=r"^replay: results rec is the "):
        replay(FAMILY, results=rec, source=rec, kernels_dir=kernels)
    with pytest.raises(StageInputError, match=r"^language: 'xx' is not one of"):
        replay(FAMILY, results=Path("new"), source=rec, language="xx")
    with pytest.raises(ManifestError, match=r"kernels/v/family.yaml is missing"):
        replay(["v"], results=Path("new"), source=rec, kernels_dir=kernels)
    with pytest.raises(ManifestError, match=r"'../x' is not a family name"):
        replay(["../x"], results=Path("new"), source=rec, kernels_dir=kernels)
    with pytest.raises(StageInputError, match=r"^source: /nonexistent: no such"):
        replay(FAMILY, results=Path("new"), source=Path("/nonexistent"))
    assert _tree(project) == before


def test_api_measure_checks_its_arguments_before_writing(project):
    from nsightflow.api import MeasureOptions, measure

    before = _tree(project)
    with pytest.raises(ManifestError, match=r"^family: \['vecadd'\] is not one"):
        measure([FAMILY], results=Path("new"))  # type: ignore[arg-type]
    options = MeasureOptions(language="xx")
    with pytest.raises(StageInputError, match=r"^language: 'xx'"):
        measure(FAMILY, results=Path("new"), options=options)
    with pytest.raises(OutputRefusedError, match=r"^measure: results kernels/vecadd"):
        measure(FAMILY, results=Path("kernels/vecadd"))
    assert _tree(project) == before


def test_a_family_name_as_a_string_is_one_family(project):
    from nsightflow.api.arguments import family_names

    assert family_names(FAMILY, Path("kernels")) == [FAMILY]
    assert family_names((FAMILY,), Path("kernels")) == [FAMILY]
