"""Child-process entry for GPU work: ``python -m nsightflow.worker TASK SPEC RESULT``.

Tasks: ``verify`` (all verify sizes), ``time`` (all sweep sizes), ``launch`` (one
launch at one size, run under ncu by the profile stage). Spawned by
:mod:`nsightflow.isolate`; a crash or hang here costs one variant, not the run.
"""

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from nsightflow import timing
from nsightflow.errors import NsightflowError
from nsightflow.launch import GpuContext, Launcher, load_helpers
from nsightflow.registry import find_variant
from nsightflow.verify import compare, summarize, verify_sizes


def _verify(spec: dict[str, Any]) -> dict[str, Any]:
    family, variant = find_variant(
        Path(spec["kernels_dir"]), spec["family"], spec["variant"]
    )
    rng = np.random.default_rng(spec["seed"])
    reference = family.reference_module().reference
    per_size = []
    with GpuContext() as gpu:
        for n in verify_sizes(family, variant):
            launcher = Launcher(gpu, family, variant, Path(spec["cubin"]), n)
            launcher.setup(rng)
            launcher.launch()
            launcher.synchronize()
            outputs = launcher.outputs()
            expected = reference(launcher.inputs, n)
            launcher.free()
            for name, out in outputs.items():
                per_size.append(
                    {
                        "n": n,
                        "output": name,
                        **compare(out, expected[name], family.tolerance),
                    }
                )
    return {**summarize(per_size), "sizes": per_size}


def _time(spec: dict[str, Any]) -> dict[str, Any]:
    family, variant = find_variant(
        Path(spec["kernels_dir"]), spec["family"], spec["variant"]
    )
    settings = timing.TimingSettings(**spec["settings"])
    rng = np.random.default_rng(spec["seed"])
    rows = []
    with GpuContext() as gpu:
        cuda = gpu.cuda
        spin = load_helpers(gpu).get_function("spin_ns")
        for n in family.sizes:
            if not variant.accepts_size(n):
                rows.append({"size": n, "status": "unsupported"})
                continue
            launcher = Launcher(gpu, family, variant, Path(spec["cubin"]), n)
            launcher.setup(rng)
            for _ in range(settings.warmup):
                launcher.launch()
            launcher.synchronize()

            def batch(k: int, launcher: Launcher = launcher) -> list[float]:
                # Queue k launches behind a spinning kernel, events between them;
                # they then run back to back and each gap is one kernel's GPU time.
                k = min(k, timing.MAX_BATCH)
                events = [cuda.Event() for _ in range(k + 1)]
                spin(
                    np.int64(timing.SPIN_NS_PER_LAUNCH * k + 100_000),
                    block=(1, 1, 1),
                    grid=(1, 1),
                )
                events[0].record()
                for event in events[1:]:
                    launcher.launch()
                    event.record()
                events[-1].synchronize()
                return [a.time_till(b) * 1000.0 for a, b in itertools.pairwise(events)]

            before = timing.gpu_state()
            samples, settled = timing.sample_until_settled(batch, settings)
            after = timing.gpu_state()
            launcher.free()
            rows.append(
                {
                    "size": n,
                    "status": "ok",
                    **timing.summarize(samples),
                    "settled": settled,
                    "gpu_before": before,
                    "gpu_after": after,
                }
            )
    return {"status": "ok", "message": "", "rows": rows}


def _launch(spec: dict[str, Any]) -> dict[str, Any]:
    family, variant = find_variant(
        Path(spec["kernels_dir"]), spec["family"], spec["variant"]
    )
    rng = np.random.default_rng(spec["seed"])
    with GpuContext() as gpu:
        launcher = Launcher(gpu, family, variant, Path(spec["cubin"]), spec["n"])
        launcher.setup(rng)
        launcher.launch()
        launcher.synchronize()
        launcher.free()
    return {"status": "ok", "message": ""}


TASKS = {"verify": _verify, "time": _time, "launch": _launch}


def main(argv: list[str]) -> int:
    """Run one task; the result JSON is written only if the task returns."""
    task, spec_path, result_path = argv
    spec = json.loads(Path(spec_path).read_text())
    try:
        result = TASKS[task](spec)
    except NsightflowError as exc:
        # A problem of the machine or manifest, not of the variant: the parent raises.
        result = {"status": "environment_error", "message": str(exc)}
    Path(result_path).write_text(json.dumps(result, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
