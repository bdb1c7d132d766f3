"""Provenance stamped into every file a stage writes: versions, command, git revision.

The versions of nsightflow, nvcc, ncu and compute-sanitizer (each tool asked once per
process), the command line, date and host, and the git revision of the kernels. The
GPU's name and driver come from NVML (:func:`nsightflow.machine.gpulock.gpu_info`).
"""

import datetime as dt
import os
import platform
import re
import shlex
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

from nsightflow import __version__
from nsightflow.contracts import columns as col


def _run(argv: list[str], cwd: Path | None = None) -> str | None:
    if shutil.which(argv[0]) is None:
        return None
    try:
        out = subprocess.run(
            argv, capture_output=True, text=True, timeout=30, cwd=cwd, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


@cache
def nvcc_version() -> str | None:
    """``13.0.88`` style version of the nvcc on PATH, or None."""
    out = _run(["nvcc", "--version"])
    match = re.search(r"V(\d+\.\d+\.\d+)", out or "")
    return match.group(1) if match else None


@cache
def ncu_version() -> str | None:
    """``2025.3.1.0`` style version of the ncu on PATH, or None."""
    out = _run(["ncu", "--version"])
    match = re.search(r"Version (\S+)", out or "")
    return match.group(1) if match else None


@cache
def sanitizer_version() -> str | None:
    """``2025.3.0.0`` style version of the compute-sanitizer on PATH, or None."""
    out = _run(["compute-sanitizer", "--version"])
    match = re.search(r"Version (\S+)", out or "")
    return match.group(1) if match else None


def git_revision(path: Path) -> str | None:
    """Commit of the repository holding ``path``, with ``-dirty`` if it has changes.

    ``NSIGHTFLOW_GIT_REVISION``, when set, wins: a copy shipped to a GPU node has no
    .git, or sits inside another checkout whose revision is not that of the copy.
    """
    told = os.environ.get("NSIGHTFLOW_GIT_REVISION")
    if told:
        return told
    rev = _run(["git", "rev-parse", "--short=12", "HEAD"], cwd=path)
    if rev is None:
        return None
    dirty = _run(["git", "status", "--porcelain", "--", "."], cwd=path)
    return rev.strip() + ("-dirty" if dirty else "")


def collect(kernels_dir: Path | None = None, **extra: Any) -> dict[str, Any]:
    """Provenance block for a stage output."""
    info: dict[str, Any] = {
        "nsightflow": __version__,
        "command": shlex.join(["python", "-m", "nsightflow", *sys.argv[1:]]),
        col.DATE: dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "host": platform.node(),
        "nvcc": nvcc_version(),
    }
    if kernels_dir is not None:
        info["kernels_git"] = git_revision(kernels_dir)
    info.update(extra)
    return info
