"""Bad manifests, mode variables and recordings stop the workflow before
any job, with the one-line error of the package (file, field, fix)."""

import os
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
    assert "Job stats" not in text


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
