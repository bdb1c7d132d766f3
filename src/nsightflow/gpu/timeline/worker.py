"""The timeline's GPU side, run in the worker process: ``worker.py timeline``.

Per size, the sequence a program runs (allocate and copy the inputs in from pageable
host memory, zero the outputs, launch, copy the outputs back, free) runs ``rounds``
times; the first rounds warm up (module loading, the driver's staging buffers) and
only the last one is kept. With ``trace: cupti`` the worker records it with
:class:`nsightflow.gpu.timeline.cupti.CuptiTracer`; with ``trace: none`` it only runs,
for a tracer outside the process (nsys).
"""

from pathlib import Path
from typing import Any

import numpy as np

from nsightflow.contracts import columns as col
from nsightflow.family.registry import Family, Variant, find_variant
from nsightflow.gpu.launch import GpuContext, Job
from nsightflow.gpu.pylaunch import launcher_for
from nsightflow.records import Status


def run_sequence(
    gpu: GpuContext, family: Family, variant: Variant, cubin: Path, n: int, seed: int
) -> None:
    """Allocate, copy in, zero the outputs, launch, copy out, free: once.

    Inputs are seeded by (seed, n), as in the verify and time stages.
    """
    launcher = launcher_for(gpu, family, variant, cubin, n)
    launcher.setup(np.random.default_rng([seed, n]), fill="zero")
    launcher.launch()
    launcher.synchronize()
    launcher.outputs()
    launcher.free()


def _check(raw: list[dict[str, Any]], traced: bool) -> dict[str, str]:
    """A traced round without a kernel record is a failed trace, not an empty one."""
    kinds = {r[col.KIND] for r in raw}
    if traced and not kinds & {"KERNEL", "CONCURRENT_KERNEL"}:
        return {
            col.STATUS: Status.TRACE_EMPTY,
            col.MESSAGE: f"CUPTI gave no kernel record for the traced round (kinds "
            f"recorded: {sorted(kinds) or 'none'})",
        }
    return {col.STATUS: Status.OK, col.MESSAGE: ""}


def trace_sequences(spec: dict[str, Any], job: Job | None = None) -> dict[str, Any]:
    """Worker task ``timeline``: the sequence at every size, traced or not.

    Args:
        spec: the variant (``kernels_dir``, ``family``, ``variant``, ``cubin``),
            ``seed``, ``sizes``, ``rounds`` and ``trace``.
        job: the variant's job when the process has loaded it (the measure
            worker's), so its manifest is not read a second time.

    Returns:
        ``{"status", "message", "sizes": [{"size", "status", "raw"}]}``: ``raw``
        holds the CUPTI records of the kept round (empty without a tracer).
    """
    family, variant = (
        (job.family, job.variant)
        if job is not None
        else find_variant(
            Path(spec["kernels_dir"]),
            spec[col.FAMILY],
            spec[col.VARIANT],
            Path(spec["cubin"]),
        )
    )
    tracer = None
    if spec.get("trace") == "cupti":
        from nsightflow.gpu.timeline.cupti import CuptiTracer

        tracer = CuptiTracer()  # before the context: every kind is then recorded
    sizes: list[dict[str, Any]] = []
    with GpuContext() as gpu:
        for n in spec[col.SIZES]:
            if not variant.accepts_size(n):
                sizes.append({col.SIZE: n, col.STATUS: Status.UNSUPPORTED, "raw": []})
                continue
            for _ in range(int(spec["rounds"]) - 1):
                run_sequence(gpu, family, variant, Path(spec["cubin"]), n, spec["seed"])
            start = tracer.now() if tracer else 0
            run_sequence(gpu, family, variant, Path(spec["cubin"]), n, spec["seed"])
            raw = tracer.collect(start, tracer.now()) if tracer else []
            sizes.append({col.SIZE: n, **_check(raw, tracer is not None), "raw": raw})
    if tracer:
        tracer.close()
    return {col.STATUS: Status.OK, col.MESSAGE: "", col.SIZES: sizes}
