"""Child-process entry for GPU work: ``python -m nsightflow.gpu.worker TASK SPEC RESULT``.

Tasks: ``verify`` (all verify sizes), ``time`` (all sweep sizes), ``launch`` (one
launch at each given size, run under ncu by the profile stage), ``timeline`` (the traced
copy-in / launch / copy-out sequence, :mod:`nsightflow.gpu.timeline_worker`). Spawned by
:mod:`nsightflow.gpu.isolate`; a crash or hang here costs one variant, not the run.
"""

import itertools
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from nsightflow.errors import FrameworkMissingError, NsightflowError
from nsightflow.family.registry import Variant, find_variant
from nsightflow.gpu import timing
from nsightflow.gpu.launch import GpuContext, Launcher, load_helpers
from nsightflow.gpu.pylaunch import launcher_for
from nsightflow.gpu.timeline_worker import trace_sequences
from nsightflow.gpu.verify import compare, summarize, verify_sizes
from nsightflow.records import Status


def _rng(spec: dict[str, Any], n: int) -> np.random.Generator:
    """The input generator for size ``n``, seeded by (seed, n).

    Every variant, stage and process sees the same inputs at a given size, whichever
    other sizes it accepts.
    """
    return np.random.default_rng([spec["seed"], n])


def _verify(spec: dict[str, Any]) -> dict[str, Any]:
    family, variant = find_variant(
        Path(spec["kernels_dir"]), spec["family"], spec["variant"], Path(spec["cubin"])
    )
    reference = family.reference_module().reference
    per_size = []
    with GpuContext() as gpu:
        for n in verify_sizes(family, variant):
            launcher = launcher_for(gpu, family, variant, Path(spec["cubin"]), n)
            launcher.setup(_rng(spec, n))
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
                        **_generated(launcher),
                        **compare(out, expected[name], family.tolerance),
                    }
                )
    return {**summarize(per_size), "sizes": per_size, **_params(variant)}


def _time(spec: dict[str, Any]) -> dict[str, Any]:
    family, variant = find_variant(
        Path(spec["kernels_dir"]), spec["family"], spec["variant"], Path(spec["cubin"])
    )
    settings = timing.TimingSettings(**spec["settings"])
    rows = []
    with GpuContext() as gpu:
        spin = load_helpers(gpu).get_function("spin_ns")
        l2 = gpu.device.get_attribute(gpu.cuda.device_attribute.L2_CACHE_SIZE)
        flush = gpu.cuda.mem_alloc(timing.FLUSH_FACTOR * l2)
        for n in family.sizes:
            if not variant.accepts_size(n):
                rows.append({"size": n, "status": Status.UNSUPPORTED})
                continue
            alone, others = timing.wait_until_alone(settings)
            if not alone:
                rows.append(
                    {"size": n, "status": Status.GPU_BUSY, "other_processes": others}
                )
                continue
            launcher = launcher_for(gpu, family, variant, Path(spec["cubin"]), n)
            launcher.setup(_rng(spec, n))
            for _ in range(settings.warmup):
                launcher.launch()
            launcher.synchronize()
            cold = timing.is_cold(
                settings.cache, family.ideal_bytes(launcher.sizes), l2
            )
            runner = Batch(gpu, launcher, spin, flush if cold else None, l2)
            before = timing.gpu_state()
            samples, settled = timing.sample_until_settled(runner.run, settings)
            after = timing.gpu_state()
            launcher.free()
            rows.append(
                {
                    "size": n,
                    "status": Status.OK,
                    "cache": "cold" if cold else "hot",
                    **timing.summarize(samples),
                    "samples_ns": timing.encode_samples(samples),
                    "settled": settled,
                    "gpu_before": before,
                    "gpu_after": after,
                    "throttled": timing.throttled(before, after),
                    **_generated(launcher),
                }
            )
        flush.free()
    source = timing.source_record(variant)
    return {
        "status": Status.OK,
        "message": "",
        "rows": rows,
        "source": source,
        **_params(variant),
    }


def _params(variant: Variant) -> dict[str, Any]:
    """The parameter values the variant ran at (a sweep's best), when it has any."""
    return {"params": dict(variant.config)} if variant.config else {}


def _generated(launcher: Launcher) -> dict[str, Any]:
    """The generated sizes besides n (e.g. nnz), for the ideal FLOPs and bytes."""
    extra = {k: v for k, v in launcher.sizes.items() if k != "n"}
    return {"generated": extra} if extra else {}


class Batch:
    """Timed launches queued behind a spinning kernel (see :mod:`nsightflow.gpu.timing`).

    Hot: launches back to back, an event between each. Cold: an L2-sized memset before
    each launch evicts its inputs (as triton's do_bench and NVBench do), and only the
    launch sits between its two events.
    """

    def __init__(
        self, gpu: GpuContext, launcher: Launcher, spin: Any, flush: Any, l2: int
    ) -> None:
        self.gpu, self.launcher, self.spin, self.flush, self.l2 = (
            gpu,
            launcher,
            spin,
            flush,
            l2,
        )

    def run(self, k: int) -> list[float]:
        """Time ``k`` launches queued behind one spin kernel; their times in us."""
        cuda = self.gpu.cuda
        k = min(k, timing.MAX_BATCH)
        per_launch = timing.SPIN_NS_PER_LAUNCH * (2 if self.flush else 1)
        self.spin(np.int64(per_launch * k + 100_000), block=(1, 1, 1), grid=(1, 1))
        pairs = []
        if self.flush is None:
            events = [cuda.Event() for _ in range(k + 1)]
            events[0].record()
            for event in events[1:]:
                self.launcher.launch()
                event.record()
            pairs = list(itertools.pairwise(events))
        else:
            words = timing.FLUSH_FACTOR * self.l2 // 4
            for i in range(k):
                cuda.memset_d32_async(self.flush, i, words)
                start, end = cuda.Event(), cuda.Event()
                start.record()
                self.launcher.launch()
                end.record()
                pairs.append((start, end))
        pairs[-1][1].synchronize()
        return [a.time_till(b) * 1000.0 for a, b in pairs]


def _launch(spec: dict[str, Any]) -> dict[str, Any]:
    """One launch at each size of each run (a variant and its sizes), in order.

    A spec holds one run (``family``, ``variant``, ``cubin``, ``sizes``) or a list of
    them under ``runs``: several variants then share one process and CUDA context.
    """
    with GpuContext() as gpu:
        for run in spec.get("runs", [spec]):
            cubin = Path(run["cubin"])
            family, variant = find_variant(
                Path(spec["kernels_dir"]), run["family"], run["variant"], cubin
            )
            for n in run["sizes"]:
                launcher = launcher_for(gpu, family, variant, cubin, n)
                launcher.setup(_rng(spec, n))
                launcher.launch()
                launcher.synchronize()
                launcher.free()
    return {"status": Status.OK, "message": ""}


def _selftest_crash(spec: dict[str, Any]) -> dict[str, Any]:
    """Dies the way a kernel fault kills a process (SIGSEGV): tests the isolation."""
    import ctypes

    ctypes.string_at(0)  # reads address 0
    return {"status": Status.OK, "message": "unreachable"}


def _selftest_hang(spec: dict[str, Any]) -> dict[str, Any]:
    """Never returns, like a kernel that never ends: tests the time limit."""
    import time

    while True:
        time.sleep(1)


TASKS = {
    "verify": _verify,
    "time": _time,
    "launch": _launch,
    "timeline": trace_sequences,
    "selftest-crash": _selftest_crash,
    "selftest-hang": _selftest_hang,
}


def main(argv: list[str]) -> int:
    """Run one task; the result JSON is written only if the task returns."""
    task, spec_path, result_path = argv
    spec = json.loads(Path(spec_path).read_text())
    try:
        result = TASKS[task](spec)
    except FrameworkMissingError as exc:
        # A Python launcher whose framework is not installed here: data, not a stop.
        result = {"status": Status.SKIPPED, "message": str(exc), "skipped": True}
    except NsightflowError as exc:
        # A problem of the machine or manifest, not of the variant: the parent raises.
        result = {"status": Status.ENVIRONMENT_ERROR, "message": str(exc)}
    Path(result_path).write_text(json.dumps(result, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
