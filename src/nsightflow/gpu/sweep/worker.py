"""The GPU process of a sweep: ``python -m nsightflow.gpu.sweep.worker SPEC RESULT``.

Started (and restarted after a crash) by :func:`nsightflow.gpu.sweep.driver.run`. One CUDA
context for every configuration of the variant: the inputs of each size are generated
and uploaded once, the numpy reference of the verify sizes computed once, and each
configuration only loads its cubin and runs on the same buffers
(:meth:`Launcher.switch`). Per configuration: verify at the smallest size it accepts
(of the family's sizes and verify sizes), then time it at every sweep size with the
timing stage's sampler, on a short budget.

Before a configuration starts, its id goes to the ``inflight`` file; its result goes to
the cache the moment it exists. A launch error that leaves the context usable is the
configuration's result; one that poisons the context (an illegal address) is
recorded, and the process exits so that the parent starts a fresh one.
"""

import json
import math
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.errors import NsightflowError
from nsightflow.family.registry import Family, Variant, find_variant
from nsightflow.gpu import timing
from nsightflow.gpu.launch import GpuContext, Launcher, load_helpers
from nsightflow.gpu.sweep.search import SweepCache, search
from nsightflow.gpu.verify import compare
from nsightflow.gpu.worker import Batch

POISONED = 3  # exit code: the context is unusable after a configuration's fault


class _ContextPoisoned(Exception):
    """A configuration left the CUDA context unusable; the process must end."""


class Evaluator:
    """Verifies and times configurations of one variant on shared buffers."""

    def __init__(
        self, gpu: GpuContext, family: Family, base: Variant, spec: dict[str, Any]
    ) -> None:
        self.gpu, self.family, self.base, self.spec = gpu, family, base, spec
        self.settings = spec["settings"]
        self.sizes = [int(n) for n in spec[col.SIZES]]
        self.reference = family.reference_module().reference
        self.launchers: dict[tuple[str, int], Launcher] = {}
        self.expected: dict[int, dict[str, np.ndarray]] = {}
        self.spin = load_helpers(gpu).get_function("spin_ns")
        self.l2 = gpu.device.get_attribute(gpu.cuda.device_attribute.L2_CACHE_SIZE)
        self.flush = gpu.cuda.mem_alloc(timing.FLUSH_FACTOR * self.l2)

    def evaluate(self, config: dict[str, Any]) -> dict[str, Any]:
        """The result of one configuration: status, message, verification, times."""
        variant = self.base.with_params(config[col.PARAMS])
        cubin = Path(config["cubin"])
        start = time.perf_counter()
        result = self._run(variant, cubin)
        result[col.WALL_S] = round(time.perf_counter() - start, 3)
        return result

    def _run(self, variant: Variant, cubin: Path) -> dict[str, Any]:
        sizes = sorted(set(self.family.sizes) | set(self.family.verify_sizes))
        accepted = [n for n in sizes if variant.accepts_size(n)]
        if not accepted:
            return {
                col.STATUS: "size_not_accepted",
                col.MESSAGE: "accepts no verify size",
            }
        n = accepted[0]
        try:
            check = self._verify(variant, cubin, n)
        except self.gpu.cuda.Error as exc:
            return self._launch_failed(exc, n)
        if not check["ok"]:
            return {
                col.STATUS: "wrong_result",
                col.MESSAGE: f"n={n}: relative L2 error {check['rel_l2_error']:.3g}, "
                f"{check['unwritten_or_nonfinite']} unwritten or non-finite, first "
                f"mismatch {check['first_mismatch']}",
                col.VERIFY_N: n,
            }
        times: dict[str, float] = {}
        detail: dict[str, Any] = {}
        for size in self.sizes:
            if not variant.accepts_size(size):
                return {col.STATUS: "size_not_accepted", col.MESSAGE: f"n={size}"}
            try:
                stats = self._time(variant, cubin, size)
            except self.gpu.cuda.Error as exc:
                return self._launch_failed(exc, size)
            times[str(size)] = stats[col.TIME_MEDIAN_US]
            detail[str(size)] = {
                k: stats[k]
                for k in (col.TIME_IQR_US, col.TIME_MIN_US, col.REPS, col.CV)
            }
        return {
            col.STATUS: Status.OK,
            col.MESSAGE: "",
            col.VERIFY_N: n,
            col.REL_L2_ERROR: check[col.REL_L2_ERROR],
            "times_us": times,
            "timing": detail,
            col.GEOMEAN_US: math.exp(
                sum(math.log(t) for t in times.values()) / len(times)
            ),
        }

    def _launch_failed(self, exc: Exception, n: int) -> dict[str, Any]:
        """A launch error as the configuration's result; raises if the context died."""
        result = {col.STATUS: "launch_failed", col.MESSAGE: f"n={n}: {exc}"}
        try:
            self.gpu.ctx.synchronize()
            self.gpu.cuda.mem_alloc(4).free()
        except self.gpu.cuda.Error as again:
            raise _ContextPoisoned(json.dumps(result)) from again
        return result

    def _launcher(self, kind: str, variant: Variant, cubin: Path, n: int) -> Launcher:
        """The launcher of size ``n`` (buffers made once), switched to this cubin."""
        launcher = self.launchers.get((kind, n))
        if launcher is None:
            launcher = Launcher(self.gpu, self.family, variant, cubin, n)
            rng = np.random.default_rng([self.spec["settings"]["seed"], n])
            launcher.setup(rng)
            self.launchers[(kind, n)] = launcher
        else:
            launcher.switch(variant, cubin)
        return launcher

    def _verify(self, variant: Variant, cubin: Path, n: int) -> dict[str, Any]:
        launcher = self._launcher("verify", variant, cubin, n)
        launcher.initialize_buffers()
        launcher.launch()
        launcher.synchronize()
        outputs = launcher.outputs()
        if n not in self.expected:
            self.expected[n] = self.reference(launcher.inputs, n)
        worst: dict[str, Any] = {"ok": True, col.REL_L2_ERROR: 0.0}
        for name, out in outputs.items():
            found = compare(out, self.expected[n][name], self.family.tolerance)
            if not found["ok"] or found[col.REL_L2_ERROR] > worst[col.REL_L2_ERROR]:
                worst = found
            if not found["ok"]:
                break
        return worst

    def _time(self, variant: Variant, cubin: Path, n: int) -> dict[str, Any]:
        s = self.settings
        launcher = self._launcher("time", variant, cubin, n)
        for _ in range(s["warmup"]):
            launcher.launch()
        launcher.synchronize()
        cold = timing.is_cold(
            s[col.CACHE], self.family.ideal_bytes(launcher.sizes), self.l2
        )
        flush = self.flush if cold else None
        runner = Batch(self.gpu, launcher, self.spin, flush, self.l2)
        sampling = timing.TimingSettings(
            warmup=0,
            min_reps=s["min_reps"],
            max_reps=s["max_reps"],
            budget_s=s["rep_budget_s"],
        )
        samples, _ = timing.sample_until_settled(runner.run, sampling)
        return timing.summarize(samples)


def run_configs(spec: dict[str, Any], gpu: GpuContext) -> dict[str, Any]:
    """Evaluate the spec's configurations in the strategy's order, cache first."""
    family, base = find_variant(
        Path(spec["kernels_dir"]), spec[col.FAMILY], spec[col.VARIANT]
    )
    cache = SweepCache(Path(spec["cache"]), spec["key"])  # contracts: literal
    inflight = Path(spec["inflight"])
    evaluator: Evaluator | None = None
    parent = os.getppid()

    def evaluate(config: dict[str, Any]) -> dict[str, Any] | None:
        nonlocal evaluator
        hit = cache.get(config["id"], config["cubin_sha"])
        if hit is not None:
            return dict(hit["result"])
        if time.time() > spec["deadline"] or os.getppid() != parent:
            return None  # budget spent, or the parent is gone: start nothing new
        if evaluator is None:
            evaluator = Evaluator(gpu, family, base, spec)
        started = {"id": config["id"], "cubin_sha": config["cubin_sha"]}
        inflight.write_text(json.dumps({**started, "started": time.time()}))
        try:
            result = evaluator.evaluate(config)
        except _ContextPoisoned as dead:
            lost = {**json.loads(str(dead)), "evaluated": True}
            cache.append(config["id"], config["cubin_sha"], lost)
            inflight.unlink(missing_ok=True)
            # The context cannot be popped cleanly; the result is on disk already.
            os._exit(POISONED)
        result["evaluated"] = True
        cache.append(config["id"], config["cubin_sha"], result)
        inflight.unlink(missing_ok=True)
        return result

    s = spec["settings"]
    done = search(
        s[col.STRATEGY],
        {a: list(v) for a, v in _axes(spec).items()},
        spec[col.CONFIGS],
        evaluate,
        (int(s["max_configs"]), int(s["seed"])),
    )
    return {col.STATUS: Status.OK, col.MESSAGE: "", "evaluated": done}


def _axes(spec: dict[str, Any]) -> dict[str, list[int]]:
    """The axes as the configurations span them, in declaration order."""
    axes: dict[str, list[int]] = {}
    for config in spec[col.CONFIGS]:
        for name, value in config[col.PARAMS].items():
            if value not in axes.setdefault(name, []):
                axes[name].append(value)
    return {a: sorted(v) for a, v in axes.items()}


def main(argv: list[str]) -> int:
    """Run the sweep's configurations; exit POISONED when a fault ended the context."""
    spec_path, result_path = argv
    spec = json.loads(Path(spec_path).read_text())
    try:
        with GpuContext() as gpu:
            result = run_configs(spec, gpu)
    except NsightflowError as exc:
        result = {col.STATUS: Status.ENVIRONMENT_ERROR, col.MESSAGE: str(exc)}
    Path(result_path).write_text(json.dumps(result, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
