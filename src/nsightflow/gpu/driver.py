"""GPU stage drivers: read the upstream status, run the work isolated, write the JSON.

Each driver always writes its output: a variant that failed upstream gets a
``skipped`` record carrying the upstream status, so the report can show it.
"""

import hashlib
import json
import os
import time as _time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.errors import NcuUnavailableError
from nsightflow.family.registry import load_family, variant_of
from nsightflow.gpu import isolate
from nsightflow.gpu.pyprofile import LauncherRun, profile_launchers
from nsightflow.gpu.timing import TimingSettings
from nsightflow.io import read_json, write_json
from nsightflow.machine import double
from nsightflow.machine.gpulock import gpu_info
from nsightflow.records import Status
from nsightflow.tools import provenance
from nsightflow.tools.ncu import (
    NcuSettings,
    ncu_argv,
    require_ncu,
    run_ncu,
    runs_spec,
    worker_argv,
)


def upstream_status(path: Path) -> dict[str, Any]:
    """Status and message of the stage output a stage depends on."""
    data = read_json(path)
    return {col.STATUS: data[col.STATUS], col.MESSAGE: data.get(col.MESSAGE, "")}


def skipped(upstream: dict[str, Any], stage: str) -> dict[str, Any]:
    """The record of a stage not run because the one before it failed."""
    return {
        col.STATUS: upstream[col.STATUS],
        col.MESSAGE: f"{stage} skipped: upstream status {upstream['status']}: "
        f"{upstream['message'][:500]}",
        "skipped": True,
    }


def _isolated_stage(
    task: str,
    kernels_dir: Path,
    ident: tuple[str, str],
    upstream_path: Path,
    spec_extra: dict[str, Any],
) -> dict[str, Any]:
    """Run a worker task for one variant unless the stage before it failed."""
    family, variant = ident
    upstream = upstream_status(upstream_path)
    timeout_s = float(spec_extra.pop("timeout_s"))
    if upstream[col.STATUS] != Status.OK:
        result = skipped(upstream, task)
    else:
        spec = {
            "kernels_dir": str(kernels_dir),
            col.FAMILY: family,
            col.VARIANT: variant,
            **spec_extra,
        }
        result = isolate.run_task(task, spec, timeout_s)
    return {
        col.FAMILY: family,
        col.VARIANT: variant,
        **({"settings": spec_extra["settings"]} if "settings" in spec_extra else {}),
        **result,
        "provenance": provenance.collect(kernels_dir, **gpu_info()),
    }


def verify(
    kernels_dir: Path,
    ident: tuple[str, str],
    paths: dict[str, Path],
    timeout_s: float,
    seed: int,
) -> dict[str, Any]:
    """Run the verify worker unless compilation failed."""
    extra = {"cubin": str(paths["cubin"]), "seed": seed, "timeout_s": timeout_s}
    return _isolated_stage("verify", kernels_dir, ident, paths["resources"], extra)


def time(
    kernels_dir: Path,
    ident: tuple[str, str],
    paths: dict[str, Path],
    settings: TimingSettings,
    seed: int,
) -> dict[str, Any]:
    """Run the timing worker over the sweep unless verification failed."""
    extra = {
        "cubin": str(paths["cubin"]),
        "seed": seed,
        "settings": settings.__dict__,
        "timeout_s": settings.timeout_s,
    }
    return _isolated_stage("time", kernels_dir, ident, paths["verify"], extra)


def profile(
    kernels_dir: Path,
    family_name: str,
    variants: dict[str, dict[str, Path]],
    out_dir: Path,
    settings: NcuSettings,
    seed: int,
) -> dict[str, dict[str, Any]]:
    """Profile one launch per profiled size of each variant; a record per variant.

    ``variants`` maps each name to its ``cubin`` and ``verify`` paths. The variants
    that verified run in one ncu process, one launch after another: ncu's start, the
    Python start, the CUDA context and the report write (about 3.5 s on the H200, more
    than the lean set's counters) are paid once per family instead of once per
    variant. Their results share one report in ``out_dir``; each variant's
    ``profile.json`` (in ``out_dir/<variant>/``) names it and its results in it. If
    the shared run fails, each variant is profiled alone, so that the one at fault
    carries its own failure. A variant whose verification failed is not profiled.
    """
    records, ready = _ready_runs(kernels_dir, family_name, variants, settings)
    if not ready:
        return records
    if double.folder() is not None:  # a test's stand-in for ncu and the worker
        names = [r.name for r in ready]
        return {**records, **double.profile_records(family_name, names, out_dir)}
    try:
        require_ncu()
        # Python launchers apart: their kernels are named by their framework
        # (nsightflow.gpu.pyprofile); the CUDA variants share one ncu run.
        cuda = [r for r in ready if r.kernels]
        measured = (
            _profile_ready(kernels_dir, family_name, cuda, out_dir, settings, seed)
            if cuda
            else {}
        )
        launchers = [
            LauncherRun(r.name, r.cubin, r.sizes) for r in ready if not r.kernels
        ]
        where = (kernels_dir, family_name, seed)
        measured |= profile_launchers(where, launchers, out_dir, settings)
    except NcuUnavailableError as exc:
        # ncu missing or without counter access: said per variant, carried as data
        # so that the report marks the missing profile and how to fix it.
        for run in ready:
            records[run.name] = {
                **run.base,
                col.STATUS: Status.NCU_UNAVAILABLE,
                col.MESSAGE: str(exc),
            }
        return records
    prov = _ncu_provenance(kernels_dir, settings)
    for run in ready:
        records[run.name] = {**run.base, **measured[run.name], **prov}
    return records


def _ready_runs(
    kernels_dir: Path,
    family_name: str,
    variants: dict[str, dict[str, Path]],
    settings: NcuSettings,
) -> tuple[dict[str, dict[str, Any]], list["_Run"]]:
    """The variants to profile, and a record for each (final for those skipped)."""
    records: dict[str, dict[str, Any]] = {}
    ready: list[_Run] = []
    family = load_family(kernels_dir / family_name)  # once for every variant
    for name, paths in variants.items():
        base = {
            col.FAMILY: family_name,
            col.VARIANT: name,
            "settings": settings.__dict__,
            "reports": [],
        }
        upstream = upstream_status(paths["verify"])
        if upstream[col.STATUS] != Status.OK:
            records[name] = {**base, **skipped(upstream, "profile")}
            continue
        variant = variant_of(family, name, paths["cubin"])
        sizes = [n for n in family.profile_sizes if variant.accepts_size(n)]
        if not sizes:
            records[name] = {
                **base,
                col.STATUS: Status.SKIPPED,
                col.MESSAGE: f"no profile size in {list(family.profile_sizes)} accepted",
            }
            continue
        per_size = len(variant.launches)
        ready.append(_Run(name, paths["cubin"], sizes, variant.kernels, per_size, base))
        records[name] = base
    return records, ready


def _profile_ready(
    kernels_dir: Path,
    family: str,
    ready: list["_Run"],
    out_dir: Path,
    settings: NcuSettings,
    seed: int,
) -> dict[str, dict[str, Any]]:
    """Together in one ncu run; each alone if there is one, or if that run failed."""
    note = ""
    if len(ready) > 1:
        label = json.dumps([[r.name, r.sizes] for r in ready]).encode()
        report = out_dir / f"{family}.{hashlib.sha1(label).hexdigest()[:8]}.ncu-rep"
        status, message, together = _profile_runs(
            (kernels_dir, family, seed), ready, out_dir, report, settings
        )
        if status == Status.OK:
            return together
        report.unlink(missing_ok=True)
        last = message.strip().splitlines()[-1][:300] if message.strip() else ""
        note = f"profiled alone: the family's shared ncu run failed ({last})"
    measured = {}
    for run in ready:
        report = out_dir / run.name / f"n{'+'.join(str(n) for n in run.sizes)}.ncu-rep"
        _, _, alone = _profile_runs(
            (kernels_dir, family, seed), [run], out_dir, report, settings
        )
        record = alone[run.name]
        if note and record[col.STATUS] == Status.OK:
            record[col.MESSAGE] = note[:2000]
        measured[run.name] = record
    return measured


@dataclass(frozen=True)
class _Run:
    """A variant ready to profile: its cubin, sizes and kernel names."""

    name: str
    cubin: Path
    sizes: list[int]
    kernels: tuple[str, ...]
    per_size: int  # launches per size: the variant's launch sequence
    base: dict[str, Any]


def _profile_runs(
    where: tuple[Path, str, int],
    runs: list[_Run],
    out_dir: Path,
    report: Path,
    settings: NcuSettings,
) -> tuple[str, str, dict[str, dict[str, Any]]]:
    """One ncu process launching ``runs`` in order into ``report``.

    Returns (status, ncu's message, record per variant); each record names its
    launches in the report (``first_action``, ``actions``) by a path relative to the
    variant's folder, so one report can serve several variants.
    """
    kernels_dir, family, seed = where
    report.parent.mkdir(parents=True, exist_ok=True)
    report.unlink(missing_ok=True)  # a new file: an archived hard link stays as it was
    spec_path, result_path = (
        report.parent / ".spec.json",
        report.parent / ".result.json",
    )
    spec = [
        {
            col.FAMILY: family,
            col.VARIANT: r.name,
            "cubin": str(r.cubin),
            col.SIZES: r.sizes,
        }
        for r in runs
    ]
    write_json(spec_path, runs_spec(kernels_dir, seed, spec))
    launches = sum(len(r.sizes) * r.per_size for r in runs)
    argv = ncu_argv(
        settings,
        [k for r in runs for k in r.kernels],
        report,
        worker_argv(spec_path, result_path),
        launches,
    )
    start = _time.perf_counter()
    status, message, passes = run_ncu(argv, settings.timeout_s * len(runs))
    wall = _time.perf_counter() - start
    spec_path.unlink()
    made = launches_made(result_path, runs)
    result_path.unlink(missing_ok=True)
    ran = _Ran(status, message, argv, passes, wall, launches, report)
    records, first = {}, 0
    for r, count in zip(runs, made, strict=True):
        records[r.name] = _run_record(r, runs, ran, (first, count), out_dir)
        first += count
    return status, message, records


def launches_made(result_path: Path, runs: list[_Run]) -> list[int]:
    """The launches each run made (all its sizes), as the worker counted them.

    A launch with an empty grid is not made (HYB SpMV on the banded matrix has no
    COO part), and ncu profiles only the launches made: counting the declared ones
    would shift every later variant's ``first_action`` in a shared report onto its
    neighbour's launches. The declared counts stand where the worker wrote none.
    """
    declared = [len(r.sizes) * r.per_size for r in runs]
    try:
        counts = json.loads(result_path.read_text()).get("launches")
    except (OSError, ValueError, AttributeError):
        return declared
    if not (
        isinstance(counts, list)
        and len(counts) == len(runs)
        and all(
            isinstance(c, list) and len(c) == len(r.sizes)
            for c, r in zip(counts, runs, strict=True)
        )
        and all(isinstance(n, int) and n >= 0 for c in counts for n in c)
    ):
        return declared
    return [sum(c) for c in counts]


@dataclass(frozen=True)
class _Ran:
    """What one ncu process did: its outcome, passes per launch and wall time."""

    status: str
    message: str
    argv: list[str]
    passes: list[int]
    wall: float
    launches: int
    report: Path


def _run_record(
    r: _Run, runs: list[_Run], ran: _Ran, place: tuple[int, int], out_dir: Path
) -> dict[str, Any]:
    """One variant's record of an ncu process: its launches in the report.

    ``place``: its first launch in the report and the launches it made there.
    """
    first, count = place
    per_size = count // len(r.sizes)
    per_launch = ran.wall / ran.launches
    shared = {
        col.FILE: os.path.relpath(ran.report, out_dir / r.name),
        "first_action": first,
        "actions": count,
        col.STATUS: ran.status,
        col.MESSAGE: ran.message,
        "argv": ran.argv,
    }
    entries = [
        {
            col.SIZE: n,
            "result": i,
            **shared,
            "passes": _at(ran.passes, first + i * per_size),
            col.WALL_S: round(per_launch * per_size, 2),
        }
        for i, n in enumerate(r.sizes)
    ]
    said = (
        ran.message
        if ran.status == Status.OK
        else (f"n={'+'.join(str(n) for n in r.sizes)}: {ran.message}")
    )
    record: dict[str, Any] = {
        "reports": entries,
        col.WALL_S: round(per_launch * count, 2),
        col.STATUS: ran.status,
        col.MESSAGE: said,
    }
    if len(runs) > 1:
        record["run"] = {  # contracts: literal (the profile run, not compare's)
            "variants": [x.name for x in runs],
            col.WALL_S: round(ran.wall, 2),
            col.FILE: ran.report.name,
        }
    return record


def _at(values: list[int], index: int) -> int | None:
    return values[index] if index < len(values) else None


def _ncu_provenance(kernels_dir: Path, settings: NcuSettings) -> dict[str, Any]:
    return {
        "provenance": provenance.collect(
            kernels_dir,
            ncu=provenance.ncu_version(),
            clock_control=settings.clock_control,
            **gpu_info(),
        )
    }
