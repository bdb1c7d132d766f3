"""Running the CLI in a child process, as a workflow rule does (shared by the tests)."""

import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def nsightflow(
    *args: str, env: Mapping[str, str] | None = None, cwd: Path = ROOT
) -> subprocess.CompletedProcess[str]:
    """``python -m nsightflow ARGS``: its exit status, stdout and stderr (not checked)."""
    return subprocess.run(
        [sys.executable, "-m", "nsightflow", *args],
        env=None if env is None else dict(env),
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


WORKFLOW_FILES = ("Snakefile", "config.yaml")
WORKFLOW_DIRS = ("workflow", "kernels", "profiles", "examples")


def copy_workflow(work: Path) -> Path:
    """``work`` holding a copy of the workflow, kernels, recording, the test config and
    the test families (tests/conftest.py ``workdir``): runs there never touch the
    checkout. Returns ``work``."""
    import shutil

    for name in WORKFLOW_FILES:
        shutil.copy2(ROOT / name, work / name)
    for name in (*WORKFLOW_DIRS, ".test"):
        shutil.copytree(ROOT / name, work / name)
    shutil.copytree(ROOT / "tests" / "data" / "families", work / "families")
    return work


def replay_in(work: Path, *args: str) -> Path:
    """Copy the workflow, kernels and recording into ``work`` and replay there.

    ``snakemake --cores 2 ARGS`` with the environment's NSIGHTFLOW_MODE removed (the
    machine decides: replay on a CPU); a failing run fails the caller. Returns
    ``work/results/report``.
    """
    import os
    import shutil

    for name in WORKFLOW_FILES:
        if not (work / name).exists():
            shutil.copy2(ROOT / name, work / name)
    for name in WORKFLOW_DIRS:
        if not (work / name).exists():
            shutil.copytree(ROOT / name, work / name)
    env = {k: v for k, v in os.environ.items() if k != "NSIGHTFLOW_MODE"}
    proc = subprocess.run(
        ["snakemake", "--cores", "2", *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return work / "results" / "report"
