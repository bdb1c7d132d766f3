"""Parameter sweep of one variant: plan, compile every configuration, time them on the GPU.

Three steps, each a CLI subcommand (:mod:`nsightflow.stages.sweep`):

1. :func:`plan` lists the points of the variant's space (``quick`` or ``full``) with
   why a point cannot run before any compiler sees it (a constraint is false, a block
   has more than 1,024 threads).
2. :func:`compile_all` runs nvcc on every other point in parallel (CPU jobs) and
   classifies failures from ptxas: too much shared memory, too many registers, any
   other compile error. Writes ``compile.json`` and one cubin per configuration.
3. :func:`run` times them in ONE GPU process (:mod:`nsightflow.gpu.sweep.worker`):
   each configuration is verified at a small size, then timed at the family's
   ``sweep_sizes``, within a time budget. Every result is appended to a cache file
   (JSON lines) as soon as it exists, so a configuration that kills the process
   (illegal address) or hangs costs itself only: the process is restarted on the
   rest, and an interrupted sweep resumes from the cache on the next run.

Invalid configurations are data with their reason (:data:`REASONS`), never errors.
The record names the fastest configuration (``best``), which the compile stage then
builds for the rest of the pipeline.
"""

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.errors import GpuUnavailableError
from nsightflow.family.registry import find_variant
from nsightflow.gpu.sweep.search import SweepCache
from nsightflow.gpu.sweep.space import TAIL
from nsightflow.io import read_json
from nsightflow.machine import double
from nsightflow.machine.gpulock import gpu_info
from nsightflow.tools import provenance


@dataclass(frozen=True)
class SweepSettings:
    """How the GPU step runs (config.yaml ``sweep``)."""

    strategy: str = "exhaustive"
    max_configs: int = 0  # with a Kernel Tuner strategy: evaluations at most (0: all)
    budget_s: float = 300.0  # GPU wall time for the whole sweep of one variant
    config_timeout_s: float = 60.0  # one configuration, before it counts as hung
    warmup: int = 2
    min_reps: int = 5
    max_reps: int = 200
    rep_budget_s: float = 0.25  # sampling budget per configuration and size
    cache: str = "auto"  # as timing.cache: cold, hot or auto
    seed: int = 408
    restarts: int = 0  # 0: as many as there are configurations

    def key(self, sizes: tuple[int, ...]) -> str:
        """What a cached result depends on besides its cubin: sizes and sampling."""
        kept = {k: v for k, v in asdict(self).items() if k not in _NOT_IN_KEY}
        text = json.dumps({col.SIZES: list(sizes), **kept}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


POISONED = 3  # the worker's exit code after a fault it recorded itself


# Settings that decide which configurations run or how long, not what one measures.
_NOT_IN_KEY = (
    col.STRATEGY,
    "max_configs",
    "budget_s",
    "config_timeout_s",
    col.RESTARTS,
)


@dataclass
class SweepPaths:
    """Files of one variant's sweep."""

    compiled: Path  # compile.json (cubins beside it, in build/)
    build_dir: Path
    cache: Path  # results as they come, JSON lines; kept across runs (resume)
    out: Path  # the sweep record


@dataclass
class _Progress:
    restarts: int = 0
    crashes: list[str] = field(default_factory=list)


def run(
    kernels_dir: Path,
    ident: tuple[str, str],
    paths: SweepPaths,
    settings: SweepSettings,
) -> dict[str, Any]:
    """Time every compiled configuration in one GPU process (restarted after a crash).

    Returns:
        The sweep record (see :func:`assemble`).
    """
    if double.folder() is not None:  # a test's stand-in for the sweep worker
        return double.sweep_record(ident)
    family, _variant = find_variant(kernels_dir, *ident)
    compiled = read_json(paths.compiled)
    runnable = [
        {**c, "cubin": str(paths.build_dir / c["cubin"])}
        for c in compiled[col.CONFIGS]
        if c[col.STATUS] == Status.OK
    ]
    for c in runnable:
        c["cubin_sha"] = _sha(Path(c["cubin"]))
    sizes = tuple(family.sweep_sizes)
    key = settings.key(sizes)
    before = SweepCache(paths.cache, key)
    resumed = {c["id"] for c in runnable if before.has(c["id"], c["cubin_sha"])}
    start = time.time()
    progress = _Progress()
    if runnable:
        spec = {
            "kernels_dir": str(kernels_dir),
            col.FAMILY: ident[0],
            col.VARIANT: ident[1],
            col.CONFIGS: runnable,
            col.SIZES: list(sizes),
            "settings": asdict(settings),
            "key": key,
            "cache": str(paths.cache),  # contracts: literal (a file, not hot/cold)
            "deadline": start + settings.budget_s,
        }
        outcome = _drive(spec, settings, progress)
        if outcome.get(col.STATUS) == Status.ENVIRONMENT_ERROR:
            raise GpuUnavailableError(outcome[col.MESSAGE])
    cache = SweepCache(paths.cache, key)
    record = assemble(compiled, runnable, cache, sizes)
    for row in record[col.CONFIGS]:
        row[col.FROM_CACHE] = row["id"] in resumed
    record.update(
        resumed=len(resumed),
        strategy=settings.strategy,
        settings=asdict(settings),
        sweep_wall_s=round(time.time() - start, 2),
        restarts=progress.restarts,
        crashes=progress.crashes,
        provenance=provenance.collect(kernels_dir, **gpu_info()),
    )
    return record


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def _drive(
    spec: dict[str, Any], settings: SweepSettings, progress: _Progress
) -> dict[str, Any]:
    """Run the worker until it finishes, restarting it after each lost configuration.

    Returns:
        The worker's final result (``status`` ok or environment_error), or a
        ``crashed`` one when it died outside any configuration or too often.
    """
    limit = settings.restarts or len(spec[col.CONFIGS]) + 1
    with tempfile.TemporaryDirectory(prefix="nsightflow-sweep-") as tmp:
        spec_path, result_path = Path(tmp) / "spec.json", Path(tmp) / "result.json"
        inflight = Path(tmp) / "inflight.json"
        spec["inflight"] = str(inflight)
        spec_path.write_text(json.dumps(spec))
        while True:
            inflight.unlink(missing_ok=True)
            code, err, hung = _watch(
                _worker_argv(spec_path, result_path), inflight, settings
            )
            if code == 0 and result_path.is_file():
                return dict(json.loads(result_path.read_text()))
            lost = _read_inflight(inflight)
            cache = SweepCache(Path(spec["cache"]), spec["key"])  # contracts: literal
            recorded = lost is not None and cache.has(lost["id"], lost["cubin_sha"])
            if lost is None or recorded:
                if code != POISONED and not recorded:
                    # died outside any configuration (setup): nothing to skip, so stop
                    progress.crashes.append(f"worker exited {code}: {err[-TAIL:]}")
                    return {col.STATUS: Status.CRASHED, col.MESSAGE: err[-TAIL:]}
                progress.restarts += (
                    1  # a configuration's fault, recorded by the worker
                )
                if progress.restarts >= limit:
                    return {
                        col.STATUS: Status.CRASHED,
                        col.MESSAGE: "too many restarts",
                    }
                continue
            why = (
                f"hung: no result within {settings.config_timeout_s:g} s "
                "(sweep.config_timeout_s); the process was killed"
                if hung
                else f"the process died (exit {code}): {err[-TAIL:]}"
            )
            cache.append(
                lost["id"],
                lost["cubin_sha"],
                {
                    col.STATUS: "launch_failed",
                    col.MESSAGE: why,
                    col.WALL_S: lost["elapsed"],
                },
            )
            progress.crashes.append(f"{lost['id']}: {why[:200]}")
            progress.restarts += 1
            if progress.restarts >= limit:
                return {col.STATUS: Status.CRASHED, col.MESSAGE: "too many restarts"}


def _worker_argv(spec_path: Path, result_path: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "nsightflow.gpu.sweep.worker",
        str(spec_path),
        str(result_path),
    ]


def _read_inflight(path: Path) -> dict[str, Any] | None:
    try:
        data: dict[str, Any] = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    data["elapsed"] = round(time.time() - float(data.get("started", time.time())), 2)
    return data


def _watch(
    argv: list[str], inflight: Path, settings: SweepSettings
) -> tuple[int | None, str, bool]:
    """Run the worker; kill it when one configuration outlasts its time limit.

    The worker runs in a session of its own so that killing it takes everything it
    started; SIGTERM or SIGINT to this process (Snakemake stopping a job, Ctrl-C)
    kills the worker first, so no kernel is left running on the GPU. So does losing
    this process's parent (a job shell killed without its children): the sweep
    stops rather than running on unseen.

    Returns:
        The exit code (None when killed), stderr's tail, and whether it hung.
    """
    with tempfile.TemporaryFile(mode="w+") as err:
        proc = subprocess.Popen(argv, stderr=err, start_new_session=True)

        def stop(signum: int, frame: FrameType | None) -> None:
            _kill(proc)
            raise SystemExit(128 + signum)

        old = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
        hung = False
        parent = os.getppid()
        try:
            while proc.poll() is None:
                time.sleep(0.2)
                if os.getppid() != parent:
                    stop(signal.SIGHUP, None)
                current = _read_inflight(inflight)
                if current and current["elapsed"] > settings.config_timeout_s:
                    _kill(proc)
                    hung = True
        finally:
            for sig, handler in old.items():
                signal.signal(sig, handler)
        err.seek(0)
        tail = err.read()[-TAIL:]
    return (None if hung else proc.returncode), tail, hung


def _kill(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


def assemble(
    compiled: Mapping[str, Any],
    runnable: list[dict[str, Any]],
    cache: SweepCache,
    sizes: tuple[int, ...],
) -> dict[str, Any]:
    """The sweep record: every configuration with its status, times and the best.

    A runnable configuration without a cached result was not reached (``not_run``).
    ``best`` is the configuration with the smallest geometric mean of its median times
    over ``sizes`` (the same ranking as the mean time relative to the fastest at each
    size); None when no configuration ran correctly.
    """
    shas = {c["id"]: c["cubin_sha"] for c in runnable}
    configs = []
    for entry in compiled[col.CONFIGS]:
        row = {k: v for k, v in entry.items() if k not in ("argv",)}
        if entry[col.STATUS] == Status.OK:
            hit = cache.get(entry["id"], shas[entry["id"]])
            if hit is None:
                row.update(status=col.NOT_RUN, message="not reached within the budget")
            else:
                row.update(hit["result"])
        configs.append(row)
    timed = [c for c in configs if c[col.STATUS] == Status.OK and c.get("times_us")]
    for c in timed:
        c[col.GEOMEAN_US] = _geomean([c["times_us"][str(n)] for n in sizes])
    best = min(timed, key=lambda c: c[col.GEOMEAN_US], default=None)
    default_id = next(
        (c["id"] for c in configs if c[col.PARAMS] == compiled["defaults"]), None
    )
    return {
        col.FAMILY: compiled[col.FAMILY],
        col.VARIANT: compiled[col.VARIANT],
        col.STATUS: Status.OK if best else "no_valid_configuration",
        col.MESSAGE: ""
        if best
        else "no configuration compiled, verified and ran; see the reasons per configuration",
        col.SPACE: compiled[col.SPACE],
        col.AXES: compiled[col.AXES],
        "defaults": compiled["defaults"],
        col.DEFAULT_ID: default_id,
        col.SIZES: list(sizes),
        col.CONFIGS: configs,
        "best": {k: best[k] for k in ("id", col.PARAMS, "times_us", col.GEOMEAN_US)}
        if best
        else None,
        col.COMPILE_WALL_S: compiled.get(col.COMPILE_WALL_S),
    }


def _geomean(values: list[float]) -> float:
    return float(math.exp(sum(math.log(v) for v in values) / len(values)))


def best_params(sweep_record: Path) -> dict[str, int] | None:
    """The best configuration's parameters in a sweep record, or None.

    None when the file is a record without a best configuration (nothing ran
    correctly, or a replay without a recorded sweep): the variant then runs at its
    defaults.
    """
    data = read_json(sweep_record)
    best = data.get("best")
    return dict(best[col.PARAMS]) if best else None
