"""GPU stage drivers: read the upstream status, run the work isolated, write the JSON.

Each driver always writes its output: a variant that failed upstream gets a
``skipped`` record carrying the upstream status, so the report can show it.
"""

import shutil
import time as _time
from pathlib import Path
from typing import Any

from nsightflow.errors import NcuUnavailableError
from nsightflow.family.registry import find_variant
from nsightflow.gpu import isolate
from nsightflow.gpu.timing import TimingSettings
from nsightflow.machine import provenance
from nsightflow.records import Status
from nsightflow.tools.ncu import (
    NcuSettings,
    launch_spec,
    ncu_argv,
    require_ncu,
    run_ncu,
    worker_argv,
)


def upstream_status(path: Path) -> dict[str, Any]:
    """Status and message of the stage output a stage depends on."""
    data = provenance.read_json(path)
    return {"status": data["status"], "message": data.get("message", "")}


def skipped(upstream: dict[str, Any], stage: str) -> dict[str, Any]:
    """The record of a stage not run because the one before it failed."""
    return {
        "status": upstream["status"],
        "message": f"{stage} skipped: upstream status {upstream['status']}: "
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
    if upstream["status"] != Status.OK:
        result = skipped(upstream, task)
    else:
        spec = {
            "kernels_dir": str(kernels_dir),
            "family": family,
            "variant": variant,
            **spec_extra,
        }
        result = isolate.run_task(task, spec, timeout_s)
    return {
        "family": family,
        "variant": variant,
        **({"settings": spec_extra["settings"]} if "settings" in spec_extra else {}),
        **result,
        "provenance": provenance.collect(kernels_dir, **provenance.gpu_info()),
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
    ident: tuple[str, str],
    paths: dict[str, Path],
    settings: NcuSettings,
    seed: int,
) -> dict[str, Any]:
    """Profile one launch per profiled size under ncu unless verification failed."""
    family_name, variant_name = ident
    out_dir = paths["out_dir"]
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    upstream = upstream_status(paths["verify"])
    record: dict[str, Any] = {
        "family": family_name,
        "variant": variant_name,
        "settings": settings.__dict__,
        "reports": [],
    }
    if upstream["status"] != Status.OK:
        return {**record, **skipped(upstream, "profile")}
    try:
        require_ncu()
        return {**record, **_profile_sizes(kernels_dir, ident, paths, settings, seed)}
    except NcuUnavailableError as exc:
        # ncu missing or without counter access: said once per variant, carried as
        # data so that the report marks the missing profile and how to fix it.
        return {**record, "status": Status.NCU_UNAVAILABLE, "message": str(exc)}


def _profile_sizes(
    kernels_dir: Path,
    ident: tuple[str, str],
    paths: dict[str, Path],
    settings: NcuSettings,
    seed: int,
) -> dict[str, Any]:
    """One ncu run over all profiled sizes: one launch of each, in size order.

    A single process pays Python start, CUDA context and ncu start-up once per
    variant instead of once per size (about 2 s each on the H200). The report holds
    one result per size, in the order of ``profile.json``'s ``reports``.
    """
    family_name, variant_name = ident
    out_dir = paths["out_dir"]
    family, variant = find_variant(
        kernels_dir, family_name, variant_name, paths["cubin"]
    )
    sizes = [n for n in family.profile_sizes if variant.accepts_size(n)]
    record: dict[str, Any] = {"reports": []}
    if not sizes:
        return {
            **record,
            "status": Status.SKIPPED,
            "message": f"no profile size in {list(family.profile_sizes)} accepted",
        }
    report = out_dir / f"n{'+'.join(str(n) for n in sizes)}.ncu-rep"
    spec_path, result_path = out_dir / ".spec.json", out_dir / ".result.json"
    spec = launch_spec(kernels_dir, ident, paths["cubin"], seed, sizes)
    provenance.write_json(spec_path, spec)
    argv = ncu_argv(
        settings,
        variant.kernels,
        report,
        worker_argv(spec_path, result_path),
        len(sizes) * len(variant.launches),
    )
    start = _time.perf_counter()
    status, message, passes = run_ncu(argv, settings.timeout_s)
    wall = _time.perf_counter() - start
    spec_path.unlink()
    result_path.unlink(missing_ok=True)
    shared = {"file": report.name, "status": status, "message": message, "argv": argv}
    record["reports"] = [
        {
            "size": n,
            "result": i,
            **shared,
            "passes": passes[i] if i < len(passes) else None,
            "wall_s": round(wall / len(sizes), 2),
        }
        for i, n in enumerate(sizes)
    ]
    record["wall_s"] = round(wall, 2)
    if status != Status.OK:
        message = f"n={'+'.join(str(n) for n in sizes)}: {message}"
    return {
        **record,
        "status": status,
        "message": message,
        **_ncu_provenance(kernels_dir, settings),
    }


def _ncu_provenance(kernels_dir: Path, settings: NcuSettings) -> dict[str, Any]:
    return {
        "provenance": provenance.collect(
            kernels_dir,
            ncu=provenance.ncu_version(),
            clock_control=settings.clock_control,
            **provenance.gpu_info(),
        )
    }
