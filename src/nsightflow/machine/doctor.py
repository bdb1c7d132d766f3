"""``nsightflow doctor``: what this machine can do, each problem with its fix.

Exit status 0 when the full pipeline (measure mode) can run here, 1 when only replay
can. Counter access is checked by ncu itself on the first profile; a failure there is
reported with its fix by the profile stage.
"""

import importlib.util
import shutil
from dataclasses import dataclass

from nsightflow.machine.capabilities import (
    SANITIZER_FIX,
    cupti_check,
    gpu_available,
    nsys_can_write_reports,
    sanitizer_available,
)
from nsightflow.tools import provenance


@dataclass(frozen=True)
class Check:
    """One capability: whether it is there, what was found, how to fix it."""

    name: str
    ok: bool
    found: str
    fix: str
    needed_for: str  # "measure" or "replay"


def _module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def checks() -> list[Check]:
    """Probe GPU, toolchain and Python packages (no GPU work is launched)."""
    return [*_toolchain_checks(), *_timeline_checks(), *_replay_checks()]


def _toolchain_checks() -> list[Check]:
    """The GPU, NVML, nvcc and ncu: what measuring needs."""
    gpu_ok, gpu_found = gpu_available()
    nvcc = provenance.nvcc_version()
    ncu = provenance.ncu_version()
    return [
        Check(
            "GPU + pycuda",
            gpu_ok,
            gpu_found,
            "install the NVIDIA driver and `pip install -e '.[gpu]'`",
            "measure",
        ),
        Check(
            "NVML (nvidia-ml-py)",
            _module("pynvml"),
            "importable" if _module("pynvml") else "missing",
            "pip install nvidia-ml-py (clocks and other processes "
            "are then recorded with every timing)",
            "measure",
        ),
        Check(
            "nvcc",
            nvcc is not None,
            nvcc or "not on PATH",
            "install the CUDA toolkit and put its bin/ on PATH",
            "measure",
        ),
        Check(
            "ncu",
            ncu is not None,
            ncu or "not on PATH",
            "install Nsight Compute and put ncu on PATH, or set profile.enabled: false",
            "measure",
        ),
    ]


def _timeline_checks() -> list[Check]:
    """The timeline (nsys, or cupti-python) and compute-sanitizer for the faults."""
    nsys_ok, nsys_found = nsys_can_write_reports()
    cupti_ok, cupti_found = cupti_check()
    sanitizer_ok, sanitizer_found = sanitizer_available()
    return [
        Check(
            "nsys (timeline)",
            nsys_ok,
            nsys_found,
            "install Nsight Systems (with its QdstrmImporter) and put nsys on PATH; "
            "the timeline is optional",
            "measure",
        ),
        Check(
            "cupti-python (timeline)",
            cupti_ok,
            cupti_found,
            "pip install cupti-python: the timeline's fallback where nsys cannot "
            "write reports",
            "measure",
        ),
        Check(
            "compute-sanitizer",
            sanitizer_ok,
            sanitizer_found,
            SANITIZER_FIX,
            "measure",
        ),
    ]


def _replay_checks() -> list[Check]:
    """What replaying a recording needs."""
    return [
        Check(
            "ncu_report",
            _module("ncu_report"),
            "importable" if _module("ncu_report") else "missing",
            "pip install ncu-report",
            "replay",
        ),
        Check(
            "snakemake",
            shutil.which("snakemake") is not None,
            shutil.which("snakemake") or "not on PATH",
            "pip install -e .",
            "replay",
        ),
    ]


def render(found: list[Check]) -> str:
    """A readable table of the checks with fixes for what is missing."""
    lines = []
    width = max((len(c.name) for c in found), default=0)  # one column for every row
    for c in found:
        mark = "ok  " if c.ok else "MISS"
        lines.append(f"[{mark}] {c.name:{width}s} {c.found}")
        if not c.ok:
            need = "optional" if c.name in OPTIONAL else f"needed to {c.needed_for}"
            lines.append(f"       fix: {c.fix} ({need})")
    return "\n".join(lines)


OPTIONAL = {"nsys (timeline)", "compute-sanitizer", "NVML (nvidia-ml-py)"}
OPTIONAL |= {"cupti-python (timeline)"}  # the timeline runs with either backend


def exit_status(found: list[Check]) -> int:
    """0: measure mode can run here (optional tools aside); 1: only replay can."""
    return 0 if all(c.ok for c in found if c.name not in OPTIONAL) else 1
