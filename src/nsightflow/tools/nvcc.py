"""Compile stage: ``.cu`` -> ``.cubin`` plus a resources JSON parsed from ptxas.

A variant nvcc rejects is data: its JSON gets ``status: compile_failed`` and the
compiler's message, an empty cubin is written, and the stage exits 0.
"""

import hashlib
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.errors import CompileError
from nsightflow.family.pylauncher import check_launcher, framework_versions
from nsightflow.family.registry import Variant
from nsightflow.family.sources import LOCAL_INCLUDE as LOCAL_INCLUDE
from nsightflow.family.sources import local_includes as local_includes
from nsightflow.records import Status
from nsightflow.tools import provenance
from nsightflow.tools.nvdisasm import Stored, call_sites, pack

_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_BARRIERS = re.compile(r"used (\d+) barriers")
_FRAME = re.compile(
    r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads"
)
_ENTRY = re.compile(r"Compiling entry function '([^']+)'")


@dataclass(frozen=True)
class Resources:
    """Per-kernel resources reported by ``ptxas -v``."""

    kernel: str
    registers: int
    shared_bytes: int
    barriers: int
    stack_frame_bytes: int
    spill_store_bytes: int
    spill_load_bytes: int


def source_digest(source: Path) -> str:
    """SHA-256 of a variant's source and every header it includes, in a fixed order.

    Recorded with the resources, so that replay can tell an unchanged source (its
    recorded resources stand) from an edited one (compiled again and flagged).
    """
    digest = hashlib.sha256(source.read_bytes())
    for header in local_includes(source):
        digest.update(b"\0" + header.name.encode() + b"\0" + header.read_bytes())
    return digest.hexdigest()


def nvcc_argv(variant: Variant, arch: str, cubin: Path) -> list[str]:
    """The nvcc command line for one variant (pure; tested exactly)."""
    defines = [f"-D{k}={v}" for k, v in sorted(variant.compile_defines.items())]
    return [
        "nvcc",
        f"-arch={arch}",
        "-cubin",
        "-O3",
        "-lineinfo",
        "-Xptxas",
        "-v",
        *defines,
        "-o",
        str(cubin),
        str(variant.source),
    ]


def parse_ptxas(text: str) -> list[Resources]:
    """Resources of every entry function in ptxas ``-v`` output."""
    found: list[Resources] = []
    blocks = _ENTRY.split(text)
    # split() yields [prefix, name1, body1, name2, body2, ...]
    for name, body in zip(blocks[1::2], blocks[2::2], strict=True):
        regs = _USED.search(body)
        smem = _SMEM.search(body)
        bars = _BARRIERS.search(body)
        frame = _FRAME.search(body)
        found.append(
            Resources(
                kernel=name,
                registers=int(regs.group(1)) if regs else 0,
                shared_bytes=int(smem.group(1)) if smem else 0,
                barriers=int(bars.group(1)) if bars else 0,
                stack_frame_bytes=int(frame.group(1)) if frame else 0,
                spill_store_bytes=int(frame.group(2)) if frame else 0,
                spill_load_bytes=int(frame.group(3)) if frame else 0,
            )
        )
    return found


def compile_variant(variant: Variant, arch: str, cubin: Path) -> dict[str, Any]:
    """Run nvcc and return the resources record (status ok or compile_failed).

    A Python launcher is not compiled here (its framework compiles its kernels when
    they first run): its record is :func:`launcher_record`.

    Raises:
        CompileError: nvcc is not on PATH (a tool problem, not a variant problem).
    """
    if variant.is_python:
        return launcher_record(variant, cubin)
    if shutil.which("nvcc") is None:
        raise CompileError(
            "nvcc not found on PATH: install the CUDA toolkit or add its bin/ folder "
            "to PATH (replay mode needs no nvcc)"
        )
    cubin.parent.mkdir(parents=True, exist_ok=True)
    argv = nvcc_argv(variant, arch, cubin)
    proc = subprocess.run(argv, capture_output=True, text=True, check=False)
    log = proc.stdout + proc.stderr
    record: dict[str, Any] = {
        col.FAMILY: variant.family,
        col.VARIANT: variant.name,
        col.KERNEL: variant.kernel,
        "arch": arch,
        "argv": argv,
        "source_sha256": source_digest(variant.source),
        **({col.PARAMS: dict(variant.config)} if variant.config else {}),
        "provenance": provenance.collect(variant.source.parent),
    }
    if proc.returncode != 0:
        cubin.write_bytes(b"")
        return {**record, col.STATUS: Status.COMPILE_FAILED, col.MESSAGE: log.strip()}
    kernels = {r.kernel: r for r in parse_ptxas(log)}
    missing = [k for k in variant.kernels if k not in kernels]
    if missing:
        cubin.write_bytes(b"")
        return {
            **record,
            col.STATUS: Status.COMPILE_FAILED,
            col.MESSAGE: f"kernel {missing[0]!r} not found in {variant.source}; "
            f'entries: {sorted(kernels)}. Declare it extern "C" __global__ or fix '
            f"variants.{variant.name}.kernel in family.yaml",
        }
    result = {
        **record,
        col.STATUS: Status.OK,
        col.MESSAGE: "",
        "resources": kernels[variant.kernel].__dict__,
    }
    if len(variant.kernels) > 1:
        # a multi-kernel variant: the first launch's kernel represents it, all listed
        result["kernels"] = {k: kernels[k].__dict__ for k in variant.kernels}
    inlined = inline_table(variant.source, cubin)
    if inlined is not None:
        result[col.INLINED] = inlined
    return result


def launcher_record(variant: Variant, cubin: Path) -> dict[str, Any]:
    """The compile stage's record of a Python launcher: read, never imported.

    ``ok`` when the file parses and defines ``prepare``, else ``compile_failed``; the
    versions of its required frameworks found here are listed (None: not installed
    here, which the GPU stages turn into ``skipped`` where they run: the compile job
    may run on a CPU node without them). The cubin file the workflow declares is
    written empty: no CUDA module is loaded for a launcher.
    """
    cubin.parent.mkdir(parents=True, exist_ok=True)
    cubin.write_bytes(b"")
    problem = check_launcher(variant.source)
    return {
        col.FAMILY: variant.family,
        col.VARIANT: variant.name,
        col.KERNEL: variant.kernel,
        col.KIND: variant.kind,
        "requires": framework_versions(variant.requires),
        "source_sha256": source_digest(variant.source),
        "provenance": provenance.collect(variant.source.parent),
        col.STATUS: Status.COMPILE_FAILED if problem else Status.OK,
        col.MESSAGE: problem,
    }


def inline_table(source: Path, cubin: Path) -> Stored | None:
    """Where the cubin's inlined toolkit code was called from in the variant's files.

    The stored table of :mod:`nsightflow.tools.nvdisasm` (None without nvdisasm):
    the parse stage names the kernel's line instead of a CUDA header's.
    """
    own = {source.name, *(h.name for h in local_includes(source))}
    sites = call_sites(cubin, own)
    return None if sites is None else pack(sites)
