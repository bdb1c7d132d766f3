"""`nsightflow compare` on two replays of the same recording has nothing to warn about."""

import shutil

import pytest

from cli_run import nsightflow

pytestmark = pytest.mark.timeout(1800)  # the session's replay may be its setup


def test_two_replays_of_one_recording_compare_without_a_warning(
    every_family_replay, tmp_path
):
    # a second replay in another folder writes the same bytes (test_pinned_replay):
    # its copy stands for it here, the folder's marker files included
    other = tmp_path / "results"
    shutil.copytree(every_family_replay / "results", other)
    proc = nsightflow(
        "compare",
        str(every_family_replay / "results"),
        str(other),
        *("-o", str(tmp_path / "compare")),
        cwd=every_family_replay,
    )
    assert proc.returncode == 0, proc.stderr
    assert "WARNING" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
