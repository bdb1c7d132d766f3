"""Every GPU rule runs through the per-device lock, and the sanitizer stage
adapts to the machine: read from Snakemake's dry run of the workflow."""

import os
import re
import shutil
import subprocess

import pytest


def _dry_run(workdir, *args: str) -> str:
    env = {**os.environ, "NSIGHTFLOW_MODE": "measure"}
    proc = subprocess.run(
        ["snakemake", "-n", "-p", "--cores", "2", *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_every_gpu_rule_takes_a_gpu_lock(workdir):
    out = _dry_run(workdir)
    gpu_rules = set()
    for block in out.split("\nrule ")[1:]:
        name = block.split(":", 1)[0]
        resources = next(ln for ln in block.splitlines() if "resources:" in ln)
        if "gpu=1" in resources:
            gpu_rules.add(name)
            assert "python -m nsightflow gpu-lock -- python -m nsightflow" in block, (
                name
            )
        else:
            assert "gpu-lock" not in block, name
    assert {
        "measure_variant",
        "profile_family",
        "sanitize_variant",
        "measure_ceilings",
    } <= gpu_rules
    # the family's inputs and references are CPU work: no GPU, no lock
    assert "reference_family" in out and "reference_family" not in gpu_rules


def test_configured_devices_and_lock_folder_reach_the_lock(workdir):
    (workdir / "gpus.yaml").write_text(
        "gpus: {devices: [1, GPU-5a1e], lock_dir: /scratch/my locks}\n"
    )
    out = _dry_run(workdir, "--configfile", "config.yaml", "gpus.yaml")
    assert (
        "python -m nsightflow gpu-lock --devices 1 GPU-5a1e "
        "--lock-dir '/scratch/my locks' -- python -m nsightflow measure"
    ) in out


@pytest.mark.skipif(
    shutil.which("compute-sanitizer") is not None,
    reason="compute-sanitizer is on PATH here",
)
def test_without_compute_sanitizer_the_workflow_says_so_and_goes_on(workdir):
    out = _dry_run(workdir)
    assert "compute-sanitizer not on PATH" in out
    assert "the sanitizer stage records that it did not run" in out
    assert "sanitize_variant" in out


def test_sanitizer_switched_off_runs_no_sanitizer_job(workdir):
    (workdir / "off.yaml").write_text("sanitize: {enabled: false}\n")
    out = _dry_run(workdir, "--configfile", "config.yaml", "off.yaml")
    assert "sanitize_variant" not in out
    assert re.search(r"--sanitize\s+\\?\s*--(source|ceilings)", out)  # analyze: none
