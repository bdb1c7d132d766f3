"""The space of a sweep and its compilation: points, reasons, nvcc in parallel.

:func:`plan` lists the points of a variant's space (``quick`` or ``full``) with why a
point cannot run before any compiler sees it; :func:`compile_all` runs nvcc on every
other point in parallel (CPU jobs) and classifies the failures ptxas reports. The GPU
side of a sweep is :mod:`nsightflow.gpu.sweep.driver`.
"""

import math
import time
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.family.registry import Variant
from nsightflow.family.tuned import space_points
from nsightflow.tools import provenance
from nsightflow.tools.nvcc import compile_variant

# Why a configuration has no time, in the order the stages find out.
REASONS = (
    "constraint",  # a manifest constraint is false: never compiled
    "too_many_threads",  # a block of more than MAX_THREADS threads
    Status.COMPILE_FAILED,  # nvcc rejected it
    "too_much_shared_memory",  # static + dynamic shared memory over the limit
    "too_many_registers",  # registers x threads over the register file
    "launch_failed",  # the launch raised, the process died, or it hung
    "wrong_result",  # verification at the small size failed
    "size_not_accepted",  # the configuration's `accepts` rejects a sweep size
    col.NOT_RUN,  # the budget ran out (or the search strategy never chose it)
)
# Per-block limits of every GPU since compute capability 5.0 (CUDA C Programming
# Guide, "Technical Specifications per Compute Capability"): 1,024 threads, 64K
# 32-bit registers, and 48 KB of shared memory without the dynamic opt-in, which
# the launcher does not request.
MAX_THREADS = 1024
MAX_REGISTERS = 65536
MAX_SHARED_BYTES = 48 * 1024
TAIL = 2000  # characters of a compiler's or a worker's message kept in a record


def plan(variant: Variant, space: str) -> list[dict[str, Any]]:
    """Every point of the variant's space, with the reason it cannot run, if known.

    Returns:
        One entry per point: ``id``, ``params``, ``status`` (``pending``, or
        ``constraint`` / ``too_many_threads``) and ``message``.
    """
    entries = []
    for values in space_points(variant, space):  # + tuned.yaml's points
        config = variant.with_params(values)
        entry: dict[str, Any] = {
            "id": config.config_id,
            col.PARAMS: values,
            col.STATUS: "pending",
            col.MESSAGE: "",
        }
        unmet = variant.unmet_constraints(values)
        threads = max(math.prod(launch.block) for launch in config.launches)
        if unmet:
            entry.update(status="constraint", message=f"constraint false: {unmet[0]}")
        elif threads > MAX_THREADS:
            entry.update(
                status="too_many_threads",
                message=f"{threads} threads per block; at most {MAX_THREADS}",
            )
        entries.append(entry)
    return entries


def classify_compile(record: Mapping[str, Any], variant: Variant) -> tuple[str, str]:
    """(status, message) of one compiled configuration against the per-block limits."""
    message = str(record.get(col.MESSAGE, ""))
    if record[col.STATUS] != Status.OK:
        if "too much shared data" in message:
            return "too_much_shared_memory", _last_lines(message)
        registers = "registers"  # contracts: literal (words of ptxas)
        if "too many resources" in message or registers in message.lower():
            return "too_many_registers", _last_lines(message)
        return Status.COMPILE_FAILED, _last_lines(message)
    res = record.get("resources", {})
    threads = math.prod(variant.launches[0].block)
    regs = int(res.get(col.REGISTERS, 0))
    if regs * threads > MAX_REGISTERS:
        return "too_many_registers", (
            f"{regs} registers x {threads} threads = {regs * threads:,} > "
            f"{MAX_REGISTERS:,} per block"
        )
    return Status.OK, ""


def _last_lines(text: str, keep: int = 3) -> str:
    """The compiler's error lines (or its last lines when none says ``error``)."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower()]
    return "\n".join((errors or lines)[-keep:])[-TAIL:]


def compile_all(
    variant: Variant, space: str, arch: str, build_dir: Path, jobs: int
) -> dict[str, Any]:
    """Compile every runnable point of the space, ``jobs`` nvcc processes at a time.

    Returns:
        The ``compile.json`` record: the space, and per configuration its status,
        message, ptxas resources, nvcc argv and cubin file name.
    """
    build_dir.mkdir(parents=True, exist_ok=True)
    entries = plan(variant, space)
    todo = [e for e in entries if e[col.STATUS] == "pending"]

    def build(entry: dict[str, Any]) -> None:
        config = variant.with_params(entry[col.PARAMS])
        cubin = build_dir / f"{entry['id']}.cubin"
        record = compile_variant(config, arch, cubin)
        status, message = classify_compile(record, config)
        entry.update(
            status=status,
            message=message,
            cubin=cubin.name,
            argv=record["argv"],
            resources=record.get("resources", {}),
        )

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        list(pool.map(build, todo))
    return {
        col.FAMILY: variant.family,
        col.VARIANT: variant.name,
        col.SPACE: space,
        col.AXES: {a.name: list(a.chosen(space)) for a in variant.params},
        "defaults": variant.defaults,
        col.CONFIGS: entries,
        col.COMPILE_WALL_S: round(time.perf_counter() - start, 2),
        "jobs": jobs,
        "provenance": provenance.collect(variant.source.parent),
    }
