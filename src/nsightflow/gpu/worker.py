"""Child-process entry for GPU work: ``python -m nsightflow.gpu.worker TASK SPEC RESULT``.

Tasks: ``verify`` (all verify sizes), ``time`` (all sweep sizes), ``launch`` (one
launch at each given size, run under ncu by the profile stage), ``timeline`` (the traced
copy-in / launch / copy-out sequence, :mod:`nsightflow.gpu.timeline.worker`), and
``measure``: verify, time and the CUPTI timeline of one variant in one process, one
start-up instead of three (on the H200 machine a GPU job's Python, imports, NVML and
CUDA context took 2-3 s of its 3-6 s). ``measure`` is phased: a fourth argument names
a file descriptor on which the worker writes ``ready`` once its CUDA context exists,
then each phase's name once its result is in ``RESULT.<phase>``, so the parent can
keep what finished and give each phase its own time limit. Spawned by
:mod:`nsightflow.gpu.isolate`; a crash or hang here costs one variant, not the run.
"""

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from nsightflow.contracts import columns as col
from nsightflow.errors import FrameworkMissingError, NsightflowError
from nsightflow.family.reference_cache import ReferenceCache
from nsightflow.family.registry import Family, find_variant, load_family, variant_of
from nsightflow.gpu import timing
from nsightflow.gpu.launch import (
    GpuContext,
    Job,
    load_helpers,
    use_inputs_cache,
)
from nsightflow.gpu.pylaunch import launcher_for
from nsightflow.gpu.timeline.worker import trace_sequences
from nsightflow.gpu.timing import Batch
from nsightflow.gpu.verify import params_of, run_verify
from nsightflow.records import Status

__all__ = ["Batch", "job_of", "main"]

Done = Callable[[str, dict[str, Any]], None]  # a phase's name and result, when ready


def _rng(spec: dict[str, Any], n: int) -> np.random.Generator:
    """The input generator for size ``n``, seeded by (seed, n).

    Every variant, stage and process sees the same inputs at a given size, whichever
    other sizes it accepts.
    """
    return np.random.default_rng([spec["seed"], n])


def job_of(spec: dict[str, Any]) -> Job:
    """The variant of ``spec``, with its inputs' cache (``reference_cache``, optional).

    Every launcher of the process then sets up from that cache (the timeline's too).
    """
    cubin = Path(spec["cubin"])
    family, variant = find_variant(
        Path(spec["kernels_dir"]), spec[col.FAMILY], spec[col.VARIANT], cubin
    )
    root = spec.get("reference_cache")
    cache = ReferenceCache(Path(root) if root else None, family, int(spec["seed"]))
    use_inputs_cache(cache)
    return Job(family, variant, cubin, int(spec["seed"]), cache, launcher_for)


def _verify(spec: dict[str, Any]) -> dict[str, Any]:
    job = job_of(spec)
    with GpuContext() as gpu:
        return run_verify(gpu, job, int(spec.get("threads", 4)))


def _time(spec: dict[str, Any]) -> dict[str, Any]:
    job = job_of(spec)
    with GpuContext() as gpu:
        return time_on(gpu, job, spec)


def time_on(gpu: GpuContext, job: Job, spec: dict[str, Any]) -> dict[str, Any]:
    """The time result of ``job`` in an open context (the time stage's rows)."""
    settings = timing.TimingSettings(**spec["settings"])
    spin = load_helpers(gpu).get_function("spin_ns")
    return {
        col.STATUS: Status.OK,
        col.MESSAGE: "",
        "rows": timing.run_timing(gpu, job, settings, spin),
        col.SOURCE: timing.source_record(job.variant),
        **params_of(job.variant),
    }


def _measure(spec: dict[str, Any], done: Done) -> None:
    """Phases ``verify``, ``time``, ``timeline`` (those ``spec["phases"]`` lists).

    Verify and time share one CUDA context; time runs only after every comparison
    finished (no CPU work beside the timed batches) and only if verification passed.
    The timeline's CUPTI tracer must exist before the context it traces, so its
    rounds run in a second context made after the first is gone.
    """
    phases = spec.get("phases", ["verify", "time", "timeline"])
    job = job_of(spec)
    if "verify" in phases or "time" in phases:
        with GpuContext() as gpu:
            done("ready", {})
            if "verify" in phases:
                checked = run_verify(gpu, job, int(spec.get("threads", 4)))
                done("verify", checked)
                if checked[col.STATUS] != Status.OK:
                    return
            if "time" in phases:
                done("time", time_on(gpu, job, spec))
    else:
        done("ready", {})
    if "timeline" in phases:
        keys = ("kernels_dir", col.FAMILY, col.VARIANT, "cubin", "seed")
        line = {**spec["timeline"]}
        line[col.SIZES] = line[col.SIZES] or list(
            job.family.profile_sizes
        )  # the default
        traced = trace_sequences({**{k: spec[k] for k in keys}, **line}, job)
        done("timeline", traced)


def _launch(spec: dict[str, Any]) -> dict[str, Any]:
    """One launch at each size of each run (a variant and its sizes), in order.

    A spec holds one run (``family``, ``variant``, ``cubin``, ``sizes``) or a list of
    them under ``runs``: several variants then share one process and CUDA context.
    ``launches`` says how many kernels each run started at each size, so the profile
    stage can place each variant's launches in a shared report.
    """
    kernels_dir = Path(spec["kernels_dir"])
    families: dict[str, Family] = {}  # each manifest read once, not once per run
    launches: list[list[int]] = []
    with GpuContext() as gpu:
        for run in spec.get("runs", [spec]):
            cubin = Path(run["cubin"])
            name = run[col.FAMILY]
            if name not in families:
                families[name] = load_family(kernels_dir / name)
            family = families[name]
            variant = variant_of(family, run[col.VARIANT], cubin)
            launches.append([])
            for n in run[col.SIZES]:
                launcher = launcher_for(gpu, family, variant, cubin, n)
                launcher.setup(_rng(spec, n))
                launches[-1].append(launcher.launch_count())
                launcher.launch()
                launcher.synchronize()
                launcher.free()
    return {col.STATUS: Status.OK, col.MESSAGE: "", "launches": launches}


def _selftest_crash(spec: dict[str, Any]) -> dict[str, Any]:
    """Dies the way a kernel fault kills a process (SIGSEGV): tests the isolation."""
    import ctypes

    ctypes.string_at(0)  # reads address 0
    return {col.STATUS: Status.OK, col.MESSAGE: "unreachable"}


def _selftest_hang(spec: dict[str, Any]) -> dict[str, Any]:
    """Never returns, like a kernel that never ends: tests the time limit."""
    import time

    while True:
        time.sleep(1)


def _selftest_phases(spec: dict[str, Any], done: Done) -> None:
    """Phases that finish, crash or hang as ``spec["phases"]`` says: tests isolation."""
    done("ready", {})
    for name, how in spec["phases"].items():
        if how != Status.OK:
            (_selftest_crash if how == "crash" else _selftest_hang)(spec)
        done(name, {col.STATUS: Status.OK, col.MESSAGE: name})


PHASED: dict[str, Callable[[dict[str, Any], Done], None]] = {
    "measure": _measure,
    "selftest-phases": _selftest_phases,
}
TASKS = {
    "verify": _verify,
    "time": _time,
    col.LAUNCH: _launch,
    "timeline": trace_sequences,
    "selftest-crash": _selftest_crash,
    "selftest-hang": _selftest_hang,
}


def main(argv: list[str]) -> int:
    """Run one task; the result JSON is written only if the task returns."""
    task, spec_path, result_path, *progress = argv
    spec = json.loads(Path(spec_path).read_text())
    fd = int(progress[0]) if progress else None

    def done(phase: str, result: dict[str, Any]) -> None:
        if result:
            Path(f"{result_path}.{phase}").write_text(json.dumps(result, default=float))
        if fd is not None:
            os.write(fd, f"{phase}\n".encode())

    result: dict[str, Any]
    try:
        if task in PHASED:
            PHASED[task](spec, done)
            result = {col.STATUS: Status.OK, col.MESSAGE: ""}
        else:
            result = TASKS[task](spec)
    except FrameworkMissingError as exc:
        # A Python launcher whose framework is not installed here: data, not a stop.
        result = {col.STATUS: Status.SKIPPED, col.MESSAGE: str(exc), "skipped": True}
    except NsightflowError as exc:
        # A problem of the machine or manifest, not of the variant: the parent raises.
        result = {col.STATUS: Status.ENVIRONMENT_ERROR, col.MESSAGE: str(exc)}
    Path(result_path).write_text(json.dumps(result, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
