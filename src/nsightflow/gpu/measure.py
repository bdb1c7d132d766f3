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
(:func:`nsightflow.gpu.timeline.record_variant`).
"""

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.family.registry import find_variant
from nsightflow.gpu import isolate
from nsightflow.gpu.driver import skipped, upstream_status
from nsightflow.gpu.timeline import ROUNDS, TimelineSettings, timeline_sizes
from nsightflow.gpu.timing import TimingSettings
from nsightflow.machine import provenance
from nsightflow.records import Status


@dataclass(frozen=True)
class MeasureSettings:
    """The three phases' settings; ``timeline`` None: the timeline is switched off."""

    verify_timeout_s: float
    timing: TimingSettings
    timeline: TimelineSettings | None
    threads: int = 4  # CPU threads for the references and comparisons
    reference_cache: Path | None = None  # inputs and references (ReferenceCache)


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
    upstream = upstream_status(paths["resources"])
    head = {"family": family, "variant": variant}
    timed = {**head, "settings": settings.timing.__dict__}
    if upstream["status"] != Status.OK:
        verify = _stamped({**head, **skipped(upstream, "verify")}, kernels_dir)
        return {"verify": verify, "time": _skip(timed, verify)}
    spec, limits = _spec(kernels_dir, ident, paths, settings, seed)
    results, seconds = isolate.run_phases("measure", spec, limits)
    verify_seconds = {k: seconds[k] for k in ("start", "verify") if k in seconds}
    verify = _stamped(
        {**head, **results["verify"], "seconds": verify_seconds}, kernels_dir
    )
    if verify["status"] != Status.OK:
        return {"verify": verify, "time": _skip(timed, verify)}
    rest = [p for p in limits if p not in results]
    if rest:  # a crash or hang in an earlier phase: the others in a fresh process
        again, more = isolate.run_phases(
            "measure", {**spec, "phases": rest}, {p: limits[p] for p in rest}
        )
        results, seconds = {**results, **again}, {**seconds, **more}
    records = {
        "verify": verify,
        "time": _stamped(
            {**timed, **results["time"], "seconds": _only(seconds, "time")}, kernels_dir
        ),
    }
    traced = results.get("timeline")
    if traced is not None and _traced_ok(traced):
        records["timeline"] = _stamped(
            {**_timeline_head(head, settings, paths), **traced, "backend": "cupti"}
            | {"seconds": _only(seconds, "timeline")},
            kernels_dir,
        )
    return records


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
        "family": ident[0],
        "variant": ident[1],
        "cubin": str(paths["cubin"]),
        "seed": seed,
        "settings": settings.timing.__dict__,
        "threads": settings.threads,
        "phases": ["verify", "time"],
    }
    if settings.reference_cache is not None:
        spec["reference_cache"] = str(settings.reference_cache)
    limits = {"verify": settings.verify_timeout_s, "time": settings.timing.timeout_s}
    line = settings.timeline
    if line is not None and _backend(paths) == "cupti":
        fam, _ = find_variant(kernels_dir, *ident)
        sizes = timeline_sizes(fam, line)
        spec["timeline"] = {"sizes": sizes, "rounds": ROUNDS, "trace": "cupti"}
        spec["phases"].append("timeline")
        limits["timeline"] = line.timeout_s
    return spec, limits


def _backend(paths: dict[str, Path]) -> str | None:
    if "backend" not in paths:
        return None
    choice: str | None = provenance.read_json(paths["backend"])["backend"]
    return choice


def _traced_ok(result: dict[str, Any]) -> bool:
    """A trace worth keeping: every traced size has its kernel (else trace alone)."""
    if result.get("status") != Status.OK:
        return result.get("status") in (Status.CRASHED, Status.TIMEOUT)
    return all(s.get("status") != Status.TRACE_EMPTY for s in result.get("sizes", []))


def _timeline_head(
    head: dict[str, str], settings: MeasureSettings, paths: dict[str, Path]
) -> dict[str, Any]:
    """The fields the timeline stage's record starts with (its backend choice)."""
    choice = provenance.read_json(paths["backend"])
    assert settings.timeline is not None
    return {
        **head,
        "requested_backend": settings.timeline.backend,
        "backend": choice["backend"],
        "backend_note": choice["message"],
        "sizes": [],
    }


def _only(seconds: dict[str, float], phase: str) -> dict[str, float]:
    return {phase: seconds[phase]} if phase in seconds else {}


def _skip(timed: dict[str, Any], verify: dict[str, Any]) -> dict[str, Any]:
    return {**timed, **skipped(verify, "time"), "provenance": verify["provenance"]}


def _stamped(record: dict[str, Any], kernels_dir: Path) -> dict[str, Any]:
    if "provenance" in record:
        return record
    return {**record, "provenance": provenance.collect(kernels_dir, **_gpu())}


_GPU: list[dict[str, Any]] = []


def _gpu() -> dict[str, Any]:
    """NVML's GPU name and versions, read once per process (~0.1 s each time)."""
    if not _GPU:
        _GPU.append(provenance.gpu_info())
    return _GPU[0]
