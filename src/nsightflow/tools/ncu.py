"""Profile stage: the launcher under Nsight Compute, one process per family.

Each variant is launched once per profiled size (a launch, or every launch of a
multi-kernel variant's sequence). The variants of a family share one ncu process and
report, ``results/profile/<family>/<family>.<hash>.ncu-rep``; a variant profiled alone
has ``results/profile/<family>/<variant>/n<sizes>.ncu-rep``. ``profile.json`` in each
variant's folder says which file and which results in it are the variant's, and how
they were collected (ncu version, sections, metrics, clock control, argv, status per
size), since an ``.ncu-rep`` does not record it.
"""

import re
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.errors import NcuUnavailableError
from nsightflow.tools import ncu_metrics as metrics

# ncu's messages when counters cannot be read; each mapped to a fix.
_COUNTER_ERRORS = {
    "ERR_NVGPUCTRPERM": "the driver restricts GPU performance counters to admin "
    "users: run as root, or set NVreg_RestrictProfilingToAdminUsers=0 (see "
    "https://developer.nvidia.com/ERR_NVGPUCTRPERM)",
    "LibraryNotLoaded": "ncu could not load its profiling library on this machine "
    "(often a container without the injection libraries): run on a host where "
    "ncu works, or use replay mode",
}


@dataclass(frozen=True)
class NcuSettings:
    """How ncu is run (config.yaml ``profile``)."""

    clock_control: str = "none"
    set: str = "lean"
    timeout_s: float = 300.0


def kernel_filter(kernels: str | Sequence[str]) -> str:
    """The value for ncu's ``--kernel-name``: the name, or a regex matching the names."""
    names = [kernels] if isinstance(kernels, str) else list(dict.fromkeys(kernels))
    if len(names) == 1:
        return names[0]
    return "regex:^(" + "|".join(re.escape(k) for k in names) + ")$"


def ncu_argv(
    settings: NcuSettings,
    kernel: str | Sequence[str] | None,
    report: Path,
    target: list[str],
    launches: int = 1,
) -> list[str]:
    """The ncu command line profiling the first ``launches`` launches of the kernels.

    The target makes exactly one run per profiled size, one launch each or a
    multi-kernel variant's sequence of launches, so nothing else (no warm-up, no
    timing loop) is profiled and the report holds every launch of each run.

    ``kernel`` None (a Python launcher, whose kernels the framework names): ncu
    starts with profiling off and profiles every launch between the target's
    ``cuProfilerStart`` and ``cuProfilerStop`` (:mod:`nsightflow.gpu.pylaunch`).
    """
    if kernel is None:
        chosen = ["--profile-from-start", "off"]
    else:
        chosen = ["--kernel-name", kernel_filter(kernel), "--launch-skip", "0"]
        chosen += ["--launch-count", str(launches)]
    argv = [
        "ncu",
        "--clock-control",
        settings.clock_control,
        *chosen,
        "--target-processes",
        "all",
    ]
    if settings.set == "full":
        argv += ["--set", "full"]  # its SourceCounters section samples warps per PC
    else:
        for section in metrics.SECTIONS:
            argv += ["--section", section]
        argv += [
            "--metrics",
            ",".join((*metrics.EXTRA_METRICS, *metrics.SOURCE_METRICS)),
        ]
    # The CUDA sources go into the report, so that its per-line warp samples
    # read against the very text that was compiled (-lineinfo) and profiled.
    argv += ["--import-source", "yes"]
    return [*argv, "--export", str(report), "--force-overwrite", *target]


def launch_spec(
    kernels_dir: Path, ident: tuple[str, str], cubin: Path, seed: int, sizes: list[int]
) -> dict[str, Any]:
    """The worker's ``launch`` task: one launch of a variant per size (spec JSON)."""
    family, variant = ident
    return {
        "kernels_dir": str(kernels_dir),
        col.FAMILY: family,
        col.VARIANT: variant,
        "cubin": str(cubin),
        "seed": seed,
        col.SIZES: sizes,
    }


def runs_spec(
    kernels_dir: Path, seed: int, runs: list[dict[str, Any]]
) -> dict[str, Any]:
    """The worker's ``launch`` task over several variants (``runs``), in order."""
    return {"kernels_dir": str(kernels_dir), "seed": seed, "runs": runs}


def worker_argv(spec_path: Path, result_path: Path) -> list[str]:
    """The launcher process ncu runs: one launch of the variant at each size."""
    return [
        sys.executable,
        "-m",
        "nsightflow.gpu.worker",
        "launch",  # contracts: literal (the worker's subcommand)
        str(spec_path),
        str(result_path),
    ]


def diagnose_ncu_failure(output: str) -> str | None:
    """A fix for a known ncu failure found in its output, else None."""
    for marker, fix in _COUNTER_ERRORS.items():
        if marker in output:
            return f"{marker}: {fix}"
    return None


def require_ncu() -> str:
    """Path of ncu, or raise with how to get it."""
    path = shutil.which("ncu")
    if path is None:
        raise NcuUnavailableError(
            "ncu (Nsight Compute CLI) not found on PATH: install Nsight Compute and add "
            "it to PATH, set profile.enabled: false in config.yaml, or use replay mode"
        )
    return path


_PASSES = re.compile(r"(\d+) pass(?:es)?\b")


def replay_passes(output: str) -> list[int]:
    """Replay passes ncu needed for each profiled launch, in order (from its output)."""
    return [int(p) for p in _PASSES.findall(output)]


def run_ncu(argv: list[str], timeout_s: float) -> tuple[str, str, list[int]]:
    """Run ncu; return (status, message, passes), status ok / profile_failed / timeout."""
    try:
        proc = subprocess.run(
            argv, capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except subprocess.TimeoutExpired:
        return (
            Status.TIMEOUT,
            f"ncu did not finish within {timeout_s:g} s (profile.timeout_s)",
            [],
        )
    output = proc.stdout + proc.stderr
    known = diagnose_ncu_failure(output)
    if known is not None:
        raise NcuUnavailableError(known)
    passes = replay_passes(output)
    if proc.returncode != 0 or "==ERROR==" in output:
        return "profile_failed", output[-4000:], passes
    if "No kernels were profiled" in output:
        return "profile_failed", f"ncu profiled no kernel: {output[-2000:]}", passes
    return Status.OK, "", passes
