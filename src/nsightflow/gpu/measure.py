"""The measure job: verify, time and timeline of one variant in one GPU worker.

Before, each was a job of its own: three Snakemake jobs, three stage processes, three
workers, three CUDA contexts, and the inputs generated three times. On the H200
machine (vecadd, default config) that was verify 5.8-6.6 s, time 4.7-5.0 s and
timeline 3.0-3.7 s of GPU job per variant, mostly start-up and input generation.

What stays as it was: the three records (same files, same fields), one crash or hang
costing only the phase it happened in (:func:`nsightflow.gpu.isolate.run_phases`; the
phases after it run again in a fresh process), each phase's own time limit, time and
timeline skipped when verification failed. The timeline runs in the worker when its
backend is CUPTI; with nsys (a tracer around a process of its own), or when the
worker's trace came back empty, it runs as its own process as before
(:func:`nsightflow.gpu.timeline.driver.record_variant`).

The job's own process starts the worker before it imports anything heavy (pandas for
the timeline's table, the manifest schema): those load on a thread while the worker
starts and runs, instead of before it (0.6-0.7 s of each job on the H200 machine).
"""

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.gpu import isolate
from nsightflow.io import read_json
from nsightflow.machine import double
from nsightflow.machine.gpulock import gpu_info
from nsightflow.records import Status
from nsightflow.tools import provenance

TRACE_ROUNDS = 2  # as the timeline stage's ROUNDS: one warm-up round, one traced


@dataclass(frozen=True)
class TracePhase:
    """The timeline's settings (config.yaml ``timeline``); no sizes: profiled ones."""

    sizes: tuple[int, ...] = ()
    backend: str = "auto"
    timeout_s: float = 300.0


@dataclass(frozen=True)
class MeasureSettings:
    """The three phases' settings; ``timeline`` None: the timeline is switched off.

    ``timing`` holds the fields of :class:`nsightflow.gpu.timing.TimingSettings`
    (the worker builds it: importing it here would delay the worker's start).
    """

    verify_timeout_s: float
    timing: dict[str, Any] = field(default_factory=dict)
    timeline: TracePhase | None = None
    threads: int = 4  # CPU threads for the references and comparisons
    reference_cache: Path | None = None  # inputs and references (ReferenceCache)


def _preload() -> None:
    """Import what the records and the timeline's table need, beside the worker."""
    import nsightflow.gpu.driver
    import nsightflow.gpu.timeline.driver  # noqa: F401 (pandas)


def measure(
    kernels_dir: Path,
    ident: tuple[str, str],
    paths: dict[str, Path],
    settings: MeasureSettings,
    seed: int,
) -> dict[str, dict[str, Any]]:
    """The ``verify`` and ``time`` records, and ``timeline`` when traced in-process.

    Args:
        kernels_dir: folder of families.
        ident: (family, variant).
        paths: ``cubin``, ``resources`` (the compile record) and, with the timeline
            on, ``backend`` (the choice of ``nsightflow timeline-backend``).
        settings: the phases' settings.
        seed: input seed.

    Returns:
        Records by phase. ``timeline`` is absent when it must run as its own process
        (nsys, no backend, or an empty in-process trace): the caller then runs it
        once the verify record is written.
    """
    family, variant = ident
    upstream = read_json(paths["resources"])
    head = {col.FAMILY: family, col.VARIANT: variant}
    loading = threading.Thread(target=_preload, daemon=True)
    loading.start()
    if upstream[col.STATUS] != Status.OK:
        loading.join()
        verify = _stamped({**head, **_skipped(upstream, "verify")}, kernels_dir)
        timed = {**head, "settings": _timing(settings)}
        return {"verify": verify, "time": _skip(timed, verify)}
    if double.folder() is not None:  # a test's stand-in for the GPU worker
        loading.join()
        return double.measure_records(ident, settings.timeline is not None)
    spec, limits = _spec(kernels_dir, ident, paths, settings, seed)
    results, seconds = isolate.run_phases("measure", spec, limits)
    loading.join()
    timed = {**head, "settings": _timing(settings)}
    verify_seconds = {k: seconds[k] for k in ("start", "verify") if k in seconds}
    verify = _stamped(
        {**head, **results["verify"], "seconds": verify_seconds}, kernels_dir
    )
    if verify[col.STATUS] != Status.OK:
        return {"verify": verify, "time": _skip(timed, verify)}
    if rest := [p for p in limits if p not in results]:
        # a crash or hang in an earlier phase: the phases after it in a fresh process
        again, more = isolate.run_phases(
            "measure", {**spec, "phases": rest}, {p: limits[p] for p in rest}
        )
        results, seconds = {**results, **again}, {**seconds, **more}
    return {
        "verify": verify,
        "time": _stamped(
            {**timed, **results["time"], "seconds": _only(seconds, "time")}, kernels_dir
        ),
        **_timeline_record(results, seconds, (head, settings, paths), kernels_dir),
    }


def _timeline_record(
    results: dict[str, dict[str, Any]],
    seconds: dict[str, float],
    where: tuple[dict[str, str], MeasureSettings, dict[str, Path]],
    kernels_dir: Path,
) -> dict[str, dict[str, Any]]:
    """``{"timeline": record}`` of the in-process trace, or nothing (trace alone)."""
    traced = results.get("timeline")
    if traced is None or not _traced_ok(traced):
        return {}
    head, settings, paths = where
    record = {**_timeline_head(head, settings, paths), **traced, col.BACKEND: "cupti"}
    return {
        "timeline": _stamped(
            {**record, "seconds": _only(seconds, "timeline")}, kernels_dir
        )
    }


def _spec(
    kernels_dir: Path,
    ident: tuple[str, str],
    paths: dict[str, Path],
    settings: MeasureSettings,
    seed: int,
) -> tuple[dict[str, Any], dict[str, float]]:
    """The worker's spec and the phases' time limits."""
    spec: dict[str, Any] = {
        "kernels_dir": str(kernels_dir),
        col.FAMILY: ident[0],
        col.VARIANT: ident[1],
        "cubin": str(paths["cubin"]),
        "seed": seed,
        "settings": settings.timing,  # the worker fills in the defaults
        "threads": settings.threads,
        "phases": ["verify", "time"],
    }
    if settings.reference_cache is not None:
        spec["reference_cache"] = str(settings.reference_cache)
    limits = {
        "verify": settings.verify_timeout_s,
        "time": float(settings.timing.get("timeout_s", 300.0)),
    }
    line = settings.timeline
    if line is not None and _backend(paths) == "cupti":
        sizes = list(line.sizes)  # empty: the worker takes the family's profiled sizes
        spec["timeline"] = {col.SIZES: sizes, "rounds": TRACE_ROUNDS, "trace": "cupti"}
        spec["phases"].append("timeline")
        limits["timeline"] = line.timeout_s
    return spec, limits


def _backend(paths: dict[str, Path]) -> str | None:
    if col.BACKEND not in paths:
        return None
    choice: str | None = read_json(paths[col.BACKEND])[col.BACKEND]
    return choice


def _traced_ok(result: dict[str, Any]) -> bool:
    """A trace worth keeping, else traced again alone (as before this job).

    Kept: every traced size has its kernel, or the trace hung (it would again).
    Traced alone: a size came back empty, or the worker crashed in the timeline
    (what tracing in a process that already had a context may cause).
    """
    if result.get(col.STATUS) != Status.OK:
        return result.get(col.STATUS) == Status.TIMEOUT
    return all(
        s.get(col.STATUS) != Status.TRACE_EMPTY for s in result.get(col.SIZES, [])
    )


def _timeline_head(
    head: dict[str, str], settings: MeasureSettings, paths: dict[str, Path]
) -> dict[str, Any]:
    """The fields the timeline stage's record starts with (its backend choice)."""
    choice = read_json(paths[col.BACKEND])
    assert settings.timeline is not None
    return {
        **head,
        "requested_backend": settings.timeline.backend,
        col.BACKEND: choice[col.BACKEND],
        col.BACKEND_NOTE: choice[col.MESSAGE],
        col.SIZES: [],
    }


def _timing(settings: MeasureSettings) -> dict[str, Any]:
    """The sampling settings as the time record stores them (defaults filled in)."""
    from nsightflow.gpu.timing import TimingSettings

    return TimingSettings(**settings.timing).__dict__


def _skipped(upstream: dict[str, Any], stage: str) -> dict[str, Any]:
    from nsightflow.gpu.driver import skipped

    return skipped({col.MESSAGE: "", **upstream}, stage)


def _only(seconds: dict[str, float], phase: str) -> dict[str, float]:
    return {phase: seconds[phase]} if phase in seconds else {}


def _skip(timed: dict[str, Any], verify: dict[str, Any]) -> dict[str, Any]:
    return {**timed, **_skipped(verify, "time"), "provenance": verify["provenance"]}


def _stamped(record: dict[str, Any], kernels_dir: Path) -> dict[str, Any]:
    if "provenance" in record:
        return record
    return {**record, "provenance": provenance.collect(kernels_dir, **_gpu())}


_GPU: list[dict[str, Any]] = []


def _gpu() -> dict[str, Any]:
    """NVML's GPU name and versions, read once per process (~0.1 s each time)."""
    if not _GPU:
        _GPU.append(gpu_info())
    return _GPU[0]
