"""Profile stage for Python launchers: one ncu process per variant and size.

A launcher's kernels are named by its framework (``vecadd_triton`` from Triton,
``sm80_xmma_gemm_...`` from cuBLAS) and their number per call may differ between
sizes, so they cannot join the family's shared ncu run, which filters by kernel name
and counts launches. Each size runs in an ncu process of its own with profiling off
until the launcher's call (``--profile-from-start off`` and the call between
``cuProfilerStart`` and ``cuProfilerStop``, :mod:`nsightflow.gpu.pylaunch`): every
kernel of that call, and nothing else, lands in ``<variant>/n<size>.ncu-rep``, which
the variant's ``profile.json`` names whole (no ``first_action``), as the parse stage
reads it. ncu's start and the framework's import (about 3-8 s on the H200) are paid
per size.

ncu stores each profiled kernel's whole module in the report: 0.1 MB for a Triton
kernel, 14 MB for one torch.matmul (cuBLAS) or cupy.sum (CUB) on the H200, with or
without the per-instruction samples (measured both ways).
"""

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.gpu.pylaunch import RANGE_ENV
from nsightflow.io import write_json
from nsightflow.records import Status
from nsightflow.tools.ncu import NcuSettings, ncu_argv, run_ncu, runs_spec, worker_argv


@dataclass(frozen=True)
class LauncherRun:
    """A Python launcher variant to profile: its (empty) cubin and sizes."""

    name: str
    cubin: Path
    sizes: list[int]


def profile_launchers(
    where: tuple[Path, str, int],
    runs: list[LauncherRun],
    out_dir: Path,
    settings: NcuSettings,
) -> dict[str, dict[str, Any]]:
    """Each launcher at each of its sizes under ncu; the profile record per variant.

    Args:
        where: the kernels folder, the family's name and the input seed.
        runs: the launchers ready to profile (verified).
        out_dir: the family's profile folder (``<variant>/`` gets the reports).
        settings: ncu's settings (clock control, section set, time limit).

    Returns:
        Per variant: ``reports`` (one entry per size: its file, status, ncu's passes
        for the first kernel, the number of kernels profiled, wall time), ``status``
        (the first size's failure, else ok), ``message`` and ``wall_s``.
    """
    return {run.name: _profile_one(where, run, out_dir, settings) for run in runs}


def _profile_one(
    where: tuple[Path, str, int],
    run: LauncherRun,
    out_dir: Path,
    settings: NcuSettings,
) -> dict[str, Any]:
    """Every size of one launcher, each in its own ncu process and report."""
    folder = out_dir / run.name
    folder.mkdir(parents=True, exist_ok=True)
    entries = [_one_size(where, run, n, folder, settings) for n in run.sizes]
    failed = [e for e in entries if e[col.STATUS] != Status.OK]
    return {
        "reports": entries,
        col.WALL_S: round(sum(float(e[col.WALL_S]) for e in entries), 2),
        col.STATUS: failed[0][col.STATUS] if failed else Status.OK,
        col.MESSAGE: str(failed[0][col.MESSAGE])[:2000] if failed else "",
    }


def _one_size(
    where: tuple[Path, str, int],
    run: LauncherRun,
    n: int,
    folder: Path,
    settings: NcuSettings,
) -> dict[str, Any]:
    """One ncu process profiling the launcher's call at size ``n``: its entry."""
    kernels_dir, family, seed = where
    report = folder / f"n{n}.ncu-rep"
    report.unlink(missing_ok=True)
    spec_path, result_path = folder / ".spec.json", folder / ".result.json"
    one = {
        col.FAMILY: family,
        col.VARIANT: run.name,
        "cubin": str(run.cubin),
        col.SIZES: [n],
    }
    write_json(spec_path, runs_spec(kernels_dir, seed, [one]))
    target = ["env", f"{RANGE_ENV}=1", *worker_argv(spec_path, result_path)]
    argv = ncu_argv(settings, None, report, target)
    start = time.perf_counter()
    status, message, passes = run_ncu(argv, settings.timeout_s)
    spec_path.unlink()
    result_path.unlink(missing_ok=True)
    return {
        col.SIZE: n,
        "result": 0,
        col.FILE: report.name,
        col.STATUS: status,
        col.MESSAGE: message if status == Status.OK else f"n={n}: {message}",
        "argv": argv,
        "passes": passes[0] if passes else None,
        "kernels_profiled": len(passes),
        col.WALL_S: round(time.perf_counter() - start, 2),
    }
