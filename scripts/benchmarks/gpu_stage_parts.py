"""Benchmark (GPU machine): where one GPU job's seconds go, part by part, in-process.

Times the pieces every verify / time / timeline job pays: the worker's imports (a
fresh Python), NVML's start, the provenance block, the CUDA context, building the
helper kernels; then per size of one family the input generator, the float64
reference, one launch with its copy back, and the comparison. Last, how often NVML's
total-energy counter (mJ) moves, idle and with the GPU busy, and what one read costs:
the energy measurement's window must span many of its steps.

Usage (project root, GPU machine, after compiling the family's first variant):
    python scripts/benchmarks/gpu_stage_parts.py vecadd [--json OUT.json]
"""

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np


def timed(fn: Any, *args: Any) -> tuple[Any, float]:
    start = time.perf_counter()
    value = fn(*args)
    return value, time.perf_counter() - start


def startup() -> dict[str, float]:
    """A fresh Python that imports what a GPU worker imports; NVML; provenance."""
    out = {}
    for name, code in (
        ("python_bare_s", "pass"),
        ("import_worker_s", "import nsightflow.gpu.worker"),
        ("import_cli_s", "import nsightflow.cli"),
    ):
        _, out[name] = timed(subprocess.run, [sys.executable, "-c", code])
    from nsightflow.machine.gpulock import gpu_info
    from nsightflow.tools import provenance

    _, out["gpu_info_s"] = timed(gpu_info)
    _, out["provenance_s"] = timed(provenance.collect, Path("kernels"))
    return out


def gpu_parts(family_name: str) -> tuple[dict[str, Any], list[dict[str, float]]]:
    """Context, helpers and per-size work of the family's first variant."""
    from nsightflow.family.registry import load_family
    from nsightflow.gpu.launch import GpuContext, Launcher, load_helpers
    from nsightflow.gpu.verify import compare, verify_sizes

    family = load_family(Path("kernels") / family_name)
    variant = next(iter(family.variants.values()))
    cubin = Path("results/build") / family_name / f"{variant.name}.cubin"
    gpu, once = timed(GpuContext)
    out: dict[str, Any] = {"context_s": once}
    _, out["helpers_s"] = timed(load_helpers, gpu)
    _, out["helpers_again_s"] = timed(load_helpers, gpu)
    sizes = []
    reference = family.reference_module().reference
    for n in verify_sizes(family, variant):
        row: dict[str, float] = {"n": n}
        rng = np.random.default_rng([408, n])
        _, row["generate_s"] = timed(family.generator(), n, rng)
        launcher = Launcher(gpu, family, variant, cubin, n)
        _, row["setup_s"] = timed(launcher.setup, np.random.default_rng([408, n]))
        start = time.perf_counter()
        launcher.launch()
        launcher.synchronize()
        outputs = launcher.outputs()
        row["launch_copy_s"] = time.perf_counter() - start
        expected, row["reference_s"] = timed(reference, launcher.inputs, n)
        start = time.perf_counter()
        for name, value in outputs.items():
            compare(value, expected[name], family.tolerance)
        row["compare_s"] = time.perf_counter() - start
        launcher.free()
        sizes.append(row)
    spin = load_helpers(gpu).get_function("spin_ns")
    out["energy"] = energy_counter(gpu, spin)
    gpu.__exit__()
    return out, sizes


def energy_counter(gpu: Any, spin: Any) -> dict[str, Any]:
    """Steps of the total-energy counter: idle, then under a 1 s spin on every SM."""
    try:
        import pynvml

        pynvml.nvmlInit()
        handle = pynvml.nvmlDeviceGetHandleByIndex(0)
        read = pynvml.nvmlDeviceGetTotalEnergyConsumption
        read(handle)
    except Exception as exc:  # no NVML or no counter: said, not raised
        return {"error": repr(exc)}
    result: dict[str, Any] = {}
    for label, busy in (("idle", False), ("busy", True)):
        if busy:
            spin(np.int64(1_200_000_000), block=(1024, 1, 1), grid=(132 * 2, 1))
        changes, reads = [], 0
        last, start = read(handle), time.perf_counter()
        while time.perf_counter() - start < 1.0:
            value, reads = read(handle), reads + 1
            if value != last:
                changes.append((time.perf_counter() - start, value - last))
                last = value
        gaps = np.diff([t for t, _ in changes]) if len(changes) > 1 else []
        result[label] = {
            "reads": reads,
            "read_us": 1e6 / max(reads, 1),
            "steps": len(changes),
            "step_ms_median": float(np.median(gaps) * 1e3) if len(gaps) else None,
            "mj_per_step_median": float(np.median([d for _, d in changes]))
            if changes
            else None,
            "power_w": pynvml.nvmlDeviceGetPowerUsage(handle) / 1e3,
            "sm_clock_mhz": pynvml.nvmlDeviceGetClockInfo(handle, 1),
        }
        gpu.ctx.synchronize()
    pynvml.nvmlShutdown()
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("family")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    report: dict[str, Any] = {"startup": startup()}
    report["gpu"], report["sizes"] = gpu_parts(args.family)
    for key, value in {**report["startup"], **report["gpu"]}.items():
        if key != "energy":
            print(f"{key:18s} {value:8.3f} s")
    print(
        f"{'n':>10s} {'gen':>7s} {'setup':>7s} {'launch':>7s} {'ref':>7s} {'compare':>7s}"
    )
    for r in report["sizes"]:
        print(
            f"{r['n']:10d} {r['generate_s']:7.3f} {r['setup_s']:7.3f} {r['launch_copy_s']:7.3f} "
            f"{r['reference_s']:7.3f} {r['compare_s']:7.3f}"
        )
    print(f"energy counter: {json.dumps(report['gpu']['energy'])}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
