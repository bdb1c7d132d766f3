"""Bad manifests, mode variables and recordings stop the workflow before
any job, with the one-line error of the package (file, field, fix)."""

import os
import shutil
import subprocess

import pytest


def _dry_run(workdir, **env):
    environ = {k: v for k, v in os.environ.items() if k != "NSIGHTFLOW_MODE"}
    return subprocess.run(
        ["snakemake", "-n", "--cores", "1", "--config", "families=[jacobi2d]"],
        cwd=workdir,
        env={**environ, **env},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


@pytest.mark.parametrize(
    ("old", "new", "words"),
    [
        ('flops: "5*(n-2)**2"', 'flops: "n*9**9**9"', "field flops"),
        ('bytes: "2*4*n*n"', 'bytes: "12*n - 2**40"', "cannot be negative"),
    ],
)
def test_an_unbounded_or_invalid_expression_stops_the_workflow_before_any_job(
    workdir, old, new, words
):
    manifest = workdir / "kernels/jacobi2d/family.yaml"
    assert old in manifest.read_text()
    manifest.write_text(manifest.read_text().replace(old, new))
    proc = _dry_run(workdir)
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "kernels/jacobi2d/family.yaml: field" in text and words in text
    assert "Job stats" not in text and 'File "' not in text  # no stack after it


def test_a_bogus_mode_variable_stops_the_workflow(workdir):
    proc = _dry_run(workdir, NSIGHTFLOW_MODE="bogus")
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Job stats" not in text
    assert (
        "NSIGHTFLOW_MODE: 'bogus' is not one of ['auto', 'measure', 'replay']" in text
    )


def test_a_corrupt_recording_stops_the_workflow_naming_the_file(workdir):
    (workdir / "examples/h200/recording.json").write_text('{"gpu": ')
    proc = _dry_run(workdir, NSIGHTFLOW_MODE="replay")
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Job stats" not in text
    assert "examples/h200/recording.json: not valid JSON" in text
    (line,) = [ln for ln in text.splitlines() if "recording.json" in ln]
    assert line.startswith("ERROR: ") and 'File "' not in text


def test_a_missing_recording_stops_the_workflow_in_one_line(workdir):
    (workdir / "examples/h200/recording.json").unlink()
    proc = _dry_run(workdir, NSIGHTFLOW_MODE="replay")
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0 and "Job stats" not in text
    (line,) = [ln for ln in text.splitlines() if "recording.json" in ln]
    assert line.startswith("ERROR: examples/h200/recording.json: missing")
    assert 'File "' not in text and "Traceback" not in text


def test_a_read_only_results_folder_stops_the_run_in_one_line(workdir):
    """results/ mounted read-only (a private mount namespace, as root can)."""
    results = workdir / "results"
    results.mkdir(exist_ok=True)
    mount = f"mount --bind {results} {results} && mount -o remount,ro,bind {results}"
    probe = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"{mount} && ! touch {results}/x"],
        capture_output=True,
        check=False,
    )
    if shutil.which("unshare") is None or probe.returncode != 0:
        pytest.skip("cannot mount a folder read-only here (needs unshare and root)")
    run = "snakemake --cores 1 --config 'families=[jacobi2d]'"
    proc = subprocess.run(
        ["unshare", "-m", "sh", "-c", f"{mount} && {run}"],
        cwd=workdir,
        env={**os.environ, "NSIGHTFLOW_MODE": "replay"},
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    text = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "ERROR: results: the file system is read-only" in text
    assert "Traceback" not in text and 'File "' not in text
    assert not list(results.iterdir())
