"""Sanitize stage's driver: one launch of a variant under compute-sanitizer.

memcheck always; racecheck where the kernel uses shared memory. The argv and the
parsing of the tool's output are in :mod:`nsightflow.tools.sanitizer`.
"""

import json
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.family.pylauncher import missing_message, missing_modules
from nsightflow.family.registry import Family, Variant, find_variant
from nsightflow.gpu import isolate
from nsightflow.gpu.verify import verify_sizes
from nsightflow.io import read_json
from nsightflow.machine import double
from nsightflow.machine.capabilities import SANITIZER_FIX, sanitizer_available
from nsightflow.machine.gpulock import gpu_info
from nsightflow.records import Status
from nsightflow.tools import provenance
from nsightflow.tools.ncu import launch_spec, worker_argv
from nsightflow.tools.sanitizer import (
    kept_output,
    parse_output,
    sanitizer_argv,
    shared_memory_bytes,
    tool_status,
)


@dataclass(frozen=True)
class SanitizeSettings:
    """How the sanitizers run (config.yaml ``sanitize``)."""

    size: int = 0  # 0: the smallest size the variant is verified at
    timeout_s: float = 300.0


def sanitize_size(family: Family, variant: Variant, configured: int) -> int:
    """The size of the checked launch: the configured one if the variant accepts it."""
    if configured > 0 and variant.accepts_size(configured):
        return configured
    sizes = verify_sizes(family, variant)
    return min(sizes) if sizes else min(family.sizes)


def run_tool(tool: str, spec: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """One compute-sanitizer run of the worker's ``launch`` task; its record."""
    with tempfile.TemporaryDirectory(prefix="nsightflow-sanitize-") as tmp:
        spec_path = Path(tmp) / "spec.json"
        spec_path.write_text(json.dumps(spec))
        argv = sanitizer_argv(tool, worker_argv(spec_path, Path(tmp) / "result.json"))
        start = time.perf_counter()
        code, output = isolate.run_argv(argv, timeout_s)
        wall = time.perf_counter() - start
    parsed = parse_output(output)
    status = tool_status(code, parsed)
    return {
        "tool": tool,
        col.STATUS: status,
        **parsed,
        col.MESSAGE: _tool_message(tool, status, code, parsed, timeout_s),
        "exit_code": code,
        col.WALL_S: round(wall, 2),
        "argv": argv,
        "output": kept_output(output),
    }


def _tool_message(
    tool: str,
    status: str,
    code: int | None,
    parsed: Mapping[str, Any],
    timeout_s: float,
) -> str:
    if status == Status.TIMEOUT:
        return (
            f"{tool} did not finish within {timeout_s:g} s (sanitize.timeout_s); "
            "its process group was killed"
        )
    if status == "failed":
        why = parsed["unsupported"] or f"no summary printed (exit {code})"
        return f"{tool} could not check this launch: {why}"
    if status == Status.CLEAN:
        return f"{tool}: no errors"
    kinds = "; ".join(f"{k} x{n}" for k, n in parsed["kinds"].items()) or "?"
    return f"{tool}: {parsed['errors']} error(s): {kinds}"


def _overall(tools: list[dict[str, Any]]) -> tuple[str, str]:
    ran = [t for t in tools if t[col.STATUS] != Status.NOT_APPLICABLE]
    memcheck = tools[0]
    if memcheck[col.STATUS] == "failed" and memcheck.get("unsupported"):
        return Status.SANITIZER_UNAVAILABLE, memcheck[col.MESSAGE]
    for status in (Status.ERRORS, Status.TIMEOUT, "failed"):
        if any(t[col.STATUS] == status for t in ran):
            break
    else:
        status = Status.OK
    return status, "; ".join(t[col.MESSAGE] for t in ran)


def _run_tools(
    spec: dict[str, Any], smem: int | None, timeout_s: float
) -> list[dict[str, Any]]:
    """memcheck, then racecheck where the kernel uses shared memory.

    ``smem`` None: not known before the kernels run (a Python launcher's, compiled by
    its framework): racecheck runs.
    """
    tools = [run_tool("memcheck", spec, timeout_s)]
    if tools[0]["unsupported"]:
        return tools  # the device cannot be checked: racecheck would fail the same way
    if smem is None or smem > 0:
        return [*tools, run_tool("racecheck", spec, timeout_s)]
    racecheck = {
        "tool": "racecheck",
        col.STATUS: Status.NOT_APPLICABLE,
        col.MESSAGE: "racecheck: not run, the kernel uses no shared memory",
    }
    return [*tools, racecheck]


def _without_framework(
    record: dict[str, Any], variant: Variant, missing: list[str]
) -> dict[str, Any]:
    """A Python launcher whose framework is not installed here: nothing to check."""
    message = f"sanitize skipped: {missing_message(variant, missing)}"
    return {
        **record,
        col.STATUS: Status.SKIPPED,
        col.MESSAGE: message,
        "skipped": True,
        "tools": [],
    }


def _available() -> tuple[bool, str]:
    """Whether compute-sanitizer runs here, and why not (the test double stands in)."""
    return (True, "") if double.folder() is not None else sanitizer_available()


def sanitize(
    kernels_dir: Path,
    ident: tuple[str, str],
    paths: dict[str, Path],
    settings: SanitizeSettings,
    seed: int,
) -> dict[str, Any]:
    """Run memcheck (and racecheck where shared memory is used) on one variant.

    Args:
        kernels_dir: Folder of the families.
        ident: (family, variant).
        paths: ``cubin`` and ``resources`` (the compile stage's outputs).
        settings: Size and time limit.
        seed: Input seed, as in verify.

    Returns: the record of ``results/sanitize/<family>/<variant>.json``.
    """
    record: dict[str, Any] = {col.FAMILY: ident[0], col.VARIANT: ident[1]}
    available, why = _available()
    if not available:
        return {
            **record,
            col.STATUS: Status.SANITIZER_UNAVAILABLE,
            col.MESSAGE: f"{why}: {SANITIZER_FIX}",
            "tools": [],
        }
    resources = read_json(paths["resources"])
    if resources.get(col.STATUS) != Status.OK:
        return {
            **record,
            col.STATUS: Status.SKIPPED,
            col.MESSAGE: f"sanitize skipped: upstream status {resources.get('status')}",
            "upstream_status": resources.get(col.STATUS),
            "skipped": True,
            "tools": [],
        }
    if double.folder() is not None:  # a test's stand-in for the tool
        return double.record("sanitize", ident)
    family, variant = find_variant(kernels_dir, *ident, Path(paths["cubin"]))
    if missing := missing_modules(variant.requires):  # a launcher's framework
        return _without_framework(record, variant, missing)
    n = sanitize_size(family, variant, settings.size)
    spec = launch_spec(kernels_dir, ident, paths["cubin"], seed, [n])
    smem = None if variant.is_python else shared_memory_bytes(resources, variant, n)
    tools = _run_tools(spec, smem, settings.timeout_s)
    status, message = _overall(tools)
    return {
        **record,
        col.STATUS: status,
        col.MESSAGE: message,
        col.SIZE: n,
        col.SHARED_BYTES: smem,
        "tools": tools,
        "provenance": provenance.collect(
            kernels_dir,
            compute_sanitizer=provenance.sanitizer_version(),
            **gpu_info(),
        ),
    }
