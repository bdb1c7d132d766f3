"""Failures of the machine (full disk, read-only or forbidden folder,
missing optional package, corrupt input) are one line naming the path and the fix;
"bug" is said only of real bugs."""

import errno
import json

import matplotlib.figure
import pandas as pd
import pytest

from nsightflow import cli
from nsightflow.errors import describe
from nsightflow.io import write_json


def _main(capfd, *args: object) -> tuple[int, str]:
    code = cli.main([str(a) for a in args])
    return code, capfd.readouterr().err


@pytest.fixture
def analysis_dir(tmp_path):
    """A tiny analysis folder: enough for the ceilings and plot stages to start."""
    folder = tmp_path / "analysis"
    folder.mkdir()
    return folder


def test_a_full_disk_while_plotting_names_the_figure(
    recording, tmp_path, capfd, monkeypatch
):
    from recorded import analyze as _analyze

    analysis = _analyze(recording, "jacobi2d", tmp_path)

    def full_disk(self, fname, **kwargs):
        with open(fname, "wb") as fh:
            fh.write(b"\x89PNG")
            raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", full_disk)
    out = tmp_path / "figures"
    code, err = _main(capfd, "plot", "--analysis-dir", analysis, "--out-dir", out)
    assert code == 2, err
    assert err.startswith(f"ERROR: {out / 'perf_vs_size.png'}: no space left")
    assert "bug" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("code", "words"),
    [
        (errno.EROFS, "the file system is read-only"),
        (errno.EACCES, "permission denied"),
        (errno.EDQUOT, "disk quota exceeded"),
    ],
)
def test_an_unwritable_output_names_the_path_and_the_fix(
    tmp_path, capfd, monkeypatch, code, words
):
    ceilings = tmp_path / "ceilings.json"
    write_json(ceilings, {"gpu": "H200", "copy_gbps": 4000.0, "fp32_gflops": 6e4})
    out = tmp_path / "report" / "ceilings.csv"

    def refuse(self, path, *args, **kwargs):
        raise OSError(code, "refused", str(path))

    monkeypatch.setattr(pd.DataFrame, "to_csv", refuse)
    status, err = _main(capfd, "ceilings-table", ceilings, "-o", out)
    assert status == 2, err
    assert err.startswith(f"ERROR: {out}: {words}") and "bug" not in err


def test_a_corrupt_input_names_the_file(recording, tmp_path, capfd):
    from recorded import analyze as _analyze

    analysis = _analyze(recording, "jacobi2d", tmp_path / "a")  # every file there
    (analysis / "analysis.csv").write_text("")
    code, err = _main(
        capfd, "plot", "--analysis-dir", analysis, "--out-dir", tmp_path / "f"
    )
    assert code == 2, err
    assert err.startswith(f"ERROR: {analysis / 'analysis.csv'}: cannot be read")
    assert "EmptyDataError" in err and "bug" not in err


def test_a_corrupt_json_input_names_the_file(tmp_path, capfd):
    ceilings = tmp_path / "ceilings.json"
    ceilings.write_text('{"gpu": "H200", "copy_gbps": 40')
    code, err = _main(capfd, "ceilings-table", ceilings, "-o", tmp_path / "c.csv")
    assert code == 2 and str(ceilings) in err and "bug" not in err


@pytest.mark.parametrize(
    ("exc", "words"),
    [
        (ModuleNotFoundError("No module named 'pycuda'", name="pycuda"), "'.[gpu]'"),
        (ModuleNotFoundError("x", name="pynvml"), "nvidia-ml-py"),
        (ModuleNotFoundError("x", name="cupti"), "cupti-python"),
        (
            ImportError(
                "Unable to find a usable engine; tried using: 'pyarrow', "
                "'fastparquet'. A suitable version of pyarrow or fastparquet is required"
            ),
            "pip install pyarrow",
        ),
    ],
)
def test_a_missing_optional_package_names_it_and_how_to_install_it(exc, words):
    message = describe(exc)
    assert message is not None and words in message and "\n" not in message


def test_a_missing_optional_package_reaches_the_user_as_one_line(capfd, monkeypatch):
    import nsightflow.plot.figures as figures

    def needs_pyarrow(*args, **kwargs):
        raise ModuleNotFoundError("No module named 'pyarrow'", name="pyarrow")

    monkeypatch.setattr(figures, "write_figures", needs_pyarrow)
    code, err = _main(capfd, "plot", "--analysis-dir", "a", "--out-dir", "b")
    assert code == 2
    assert err.strip() == (
        "ERROR: the optional package pyarrow is not installed: pip install pyarrow "
        "(needed for .parquet tables), or write .csv"
    )


@pytest.mark.parametrize(
    "exc",
    [
        KeyError("variant"),
        ModuleNotFoundError("No module named 'nsightflow.nothing'", name="nsightflow"),
        OSError(errno.EIO, "Input/output error"),
    ],
)
def test_a_real_bug_is_still_called_a_bug(capfd, monkeypatch, exc):
    import nsightflow.plot.figures as figures

    def broken(*args, **kwargs):
        raise exc

    monkeypatch.setattr(figures, "write_figures", broken)
    code, err = _main(capfd, "plot", "--analysis-dir", "a", "--out-dir", "b")
    assert code == 3 and "This is a bug in nsightflow" in err


def test_describe_leaves_expected_errors_alone():
    assert describe(ValueError("x")) is None
    assert describe(json.JSONDecodeError("Expecting value", "", 0)) is not None


def test_a_missing_dependency_is_named_when_run_from_a_checkout(monkeypatch):
    """Not pip-installed (PYTHONPATH=src, as on the GPU machine): pyproject.toml says
    what nsightflow depends on, so a missing nh3 is named, not called a bug."""
    from importlib import metadata

    def not_installed(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "requires", not_installed)
    message = describe(ModuleNotFoundError("No module named 'nh3'", name="nh3"))
    assert message is not None and "nh3" in message and "pip install -e ." in message
