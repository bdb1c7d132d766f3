"""Time stage: CUDA-event timing of each variant over the family's size sweep.

Per size: warm-up launches, then batches of event-timed launches until the median
settles (moves less than ``settle_rel`` between batches) or the budget ends. Kept per
size: median, quartiles, IQR, min, repetitions, coefficient of variation, whether it
settled, GPU state (clocks, throttle reasons, other processes) before and after, and
the samples themselves (``samples_ns``, see :func:`encode_samples`). Per size after
sampling, the energy per launch of a back-to-back stream (:mod:`nsightflow.gpu.energy`),
with power and clocks. Kept per variant:
the code that was timed (:func:`source_record`), so that two runs can be compared
without the checkout that made them (``nsightflow compare``).
"""

import hashlib
import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import yaml

from nsightflow.analysis.integrity import recheck_record
from nsightflow.contracts import columns as col
from nsightflow.family.model import Variant
from nsightflow.family.registry import manifest_entries
from nsightflow.gpu.energy import EnergyMeter, Stream, measure_energy, row_fields
from nsightflow.gpu.verify import generated_of
from nsightflow.records import Status
from nsightflow.tools.nvcc import local_includes

if TYPE_CHECKING:
    from nsightflow.gpu.launch import GpuContext, Job, Launcher

# Launches queued per batch behind the spin kernel (the driver's launch queue holds
# about a thousand), and how long the spin lasts per queued launch: generous against
# Python's ~10 us per launch + event record, so the queue is full before the spin ends.
MAX_BATCH = 200
SPIN_NS_PER_LAUNCH = 40_000
# Cold mode writes FLUSH_FACTOR x the L2 size between launches to evict the inputs.
FLUSH_FACTOR = 2
# NVML clock-event reasons that mean the GPU slowed itself down (power, thermal,
# sync boost aside): sw power cap 0x4, hw slowdown 0x8, sw thermal 0x20,
# hw thermal 0x40, hw power brake 0x80 (nvml.h, nvmlClocksEventReason*).
THROTTLE_MASK = 0x4 | 0x8 | 0x20 | 0x40 | 0x80


@dataclass(frozen=True)
class TimingSettings:
    """Sampling settings (config.yaml ``timing``)."""

    warmup: int = 5
    min_reps: int = 30
    max_reps: int = 2000
    budget_s: float = 1.0
    settle_rel: float = 0.005
    timeout_s: float = 300.0
    cache: str = "auto"  # hot | cold | auto (cold where the working set fits the L2)
    guard: str = "flag"  # other processes on the GPU: wait | refuse | flag
    guard_wait_s: float = 600.0


def wait_until_alone(settings: TimingSettings) -> tuple[bool, list[int]]:
    """Apply the concurrency guard before sampling.

    Returns:
        Whether sampling may go on, and the other processes NVML listed (empty when
        the GPU is ours). ``flag`` always goes on; ``refuse`` stops when others are
        there; ``wait`` polls every 5 s until they leave or ``guard_wait_s`` passes.
    """
    deadline = time.perf_counter() + settings.guard_wait_s
    while True:
        others = list(gpu_state().get(col.OTHER_PROCESSES, []))
        if not others or settings.guard == "flag":
            return True, others
        if settings.guard == "refuse" or time.perf_counter() > deadline:
            return False, others
        time.sleep(5)


def is_cold(cache: str, working_set_bytes: float, l2_bytes: int) -> bool:
    """Whether to flush the L2 between launches at this size."""
    if cache == "auto":
        return working_set_bytes <= l2_bytes
    return cache == "cold"


def throttled(before: dict[str, Any], after: dict[str, Any]) -> bool:
    """Whether NVML reported a power or thermal slowdown before or after sampling."""
    reasons = [s.get(col.THROTTLE_REASONS) for s in (before, after)]
    return any(isinstance(r, int) and r & THROTTLE_MASK for r in reasons)


def summarize(samples_us: list[float]) -> dict[str, float | int]:
    """Robust statistics of one size's samples, in microseconds."""
    a = np.asarray(samples_us, dtype=np.float64)
    q1, med, q3 = np.percentile(a, [25, 50, 75])
    mean = float(a.mean())
    return {
        col.TIME_MEDIAN_US: float(med),
        col.TIME_Q1_US: float(q1),
        col.TIME_Q3_US: float(q3),
        col.TIME_IQR_US: float(q3 - q1),
        col.TIME_MIN_US: float(a.min()),
        "time_max_us": float(a.max()),
        "time_mean_us": mean,
        col.CV: float(a.std(ddof=1) / mean) if a.size > 1 and mean > 0 else 0.0,
        col.REPS: int(a.size),
    }


def encode_samples(samples_us: list[float]) -> str:
    """The samples as whole nanoseconds separated by spaces, in the order taken.

    CUDA events tick in 32 ns steps on the H200 (every recorded median is a multiple
    of 0.032 us), so whole nanoseconds lose nothing; one string instead of a JSON list
    keeps the indented stage output one line per size (about 6 bytes per sample, 270
    KB for the 38,000 samples of the bundled recording). Read back with
    :func:`nsightflow.analysis.runs.decode_samples`.
    """
    return " ".join(str(round(s * 1000.0)) for s in samples_us)


def source_record(variant: Variant) -> dict[str, Any]:
    """The code that was timed: the variant's manifest entry, source and headers.

    Returns:
        ``files``: display name -> text (the manifest entry as YAML without its
        ``idea``, whose wording does not change the code; the ``.cu`` file and every
        header it includes with ``#include "..."``), ``sha256`` of them,
        and ``family_sha256`` of the family's ``family.yaml`` and ``reference.py``
        (the inputs every variant runs on).
    """
    folder = variant.source.parent
    manifest = folder / "family.yaml"
    entries = manifest_entries(manifest.read_text())
    files = {
        f"{folder.name}/family.yaml (variants.{variant.name})": manifest_entry_text(
            entries, variant.name
        )
    }
    for path in (variant.source, *local_includes(variant.source)):
        files[_display_name(path, folder.parent)] = path.read_text(errors="replace")
    family = [folder / name for name in ("family.yaml", "reference.py")]
    return {
        col.FILES: files,
        "sha256": _digest(files.items()),
        "family_sha256": _digest(
            (p.name, p.read_text(errors="replace")) for p in family if p.is_file()
        ),
    }


def manifest_entry_text(entries: dict[str, Any], name: str) -> str:
    """A variant's manifest entry as YAML, without its ``idea``.

    The idea's wording does not change the code.
    """
    entry = {k: v for k, v in (entries.get(name) or {}).items() if k != "idea"}
    return str(yaml.safe_dump({name: entry}, sort_keys=False))


def _display_name(path: Path, root: Path) -> str:
    resolved = path.resolve()
    base = root.resolve()
    return str(resolved.relative_to(base) if resolved.is_relative_to(base) else path)


def _digest(items: Any) -> str:
    h = hashlib.sha256()
    for name, text in items:
        h.update(f"{name}\0{text}\0".encode())
    return h.hexdigest()


def sample_until_settled(
    timed_batch: Callable[[int], list[float]], settings: TimingSettings
) -> tuple[list[float], bool]:
    """Collect samples in batches until the median settles or a limit is reached.

    Args:
        timed_batch: runs ``k`` timed launches and returns their times in us.
        settings: repetition limits, budget and settle threshold.

    Returns:
        All samples and whether the median settled before a limit ended sampling.
    """
    samples: list[float] = []
    batch = max(settings.min_reps // 3, 5)
    previous = None
    start = time.perf_counter()
    while True:
        samples.extend(timed_batch(batch))
        median = float(np.median(samples))
        if len(samples) >= settings.min_reps and previous is not None:
            if abs(median - previous) <= settings.settle_rel * median:
                return samples, True
        if len(samples) >= settings.max_reps:
            return samples, False
        if (
            time.perf_counter() - start > settings.budget_s
            and len(samples) >= settings.min_reps
        ):
            return samples, False
        previous = median
        batch = min(batch * 2, settings.max_reps - len(samples))


def gpu_state() -> dict[str, Any]:
    """NVML snapshot: clocks, temperature, power, throttle reasons, other processes."""
    try:
        import pynvml
    except ImportError:
        return {"nvml": "unavailable (pip install nvidia-ml-py)"}
    import os

    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError as exc:
        return {"nvml": f"unavailable: {exc}"}
    try:
        from nsightflow.machine.gpulock import nvml_handle

        h = nvml_handle(pynvml)  # the GPU this job was given, not always index 0
        procs = pynvml.nvmlDeviceGetComputeRunningProcesses(h)
        others = [p.pid for p in procs if p.pid != os.getpid()]
        return {
            col.SM_CLOCK_MHZ: pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_SM),
            col.MEM_CLOCK_MHZ: pynvml.nvmlDeviceGetClockInfo(h, pynvml.NVML_CLOCK_MEM),
            "temperature_c": pynvml.nvmlDeviceGetTemperature(
                h, pynvml.NVML_TEMPERATURE_GPU
            ),
            "power_w": pynvml.nvmlDeviceGetPowerUsage(h) / 1000.0,
            col.THROTTLE_REASONS: int(pynvml.nvmlDeviceGetCurrentClocksEventReasons(h)),
            col.OTHER_PROCESSES: others,
        }
    except pynvml.NVMLError as exc:
        return {"nvml": f"error: {exc}"}
    finally:
        pynvml.nvmlShutdown()


class Batch:
    """Timed launches queued behind a spinning kernel (see the module docstring).

    Hot: launches back to back, an event between each. Cold: an L2-sized memset before
    each launch evicts its inputs (as triton's do_bench and NVBench do), and only the
    launch sits between its two events.
    """

    def __init__(
        self, gpu: "GpuContext", launcher: "Launcher", spin: Any, flush: Any, l2: int
    ) -> None:
        self.gpu, self.launcher, self.spin = gpu, launcher, spin
        self.flush, self.l2 = flush, l2

    def run(self, k: int) -> list[float]:
        """Time ``k`` launches queued behind one spin kernel; their times in us."""
        cuda = self.gpu.cuda
        k = min(k, MAX_BATCH)
        per_launch = SPIN_NS_PER_LAUNCH * (2 if self.flush else 1)
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
            words = FLUSH_FACTOR * self.l2 // 4
            for i in range(k):
                cuda.memset_d32_async(self.flush, i, words)
                start, end = cuda.Event(), cuda.Event()
                start.record()
                self.launcher.launch()
                end.record()
                pairs.append((start, end))
        pairs[-1][1].synchronize()
        return [a.time_till(b) * 1000.0 for a, b in pairs]


def run_timing(
    gpu: "GpuContext", job: "Job", settings: TimingSettings, spin: Any
) -> list[dict[str, Any]]:
    """One row per sweep size: the sampled times, GPU state and energy per launch."""
    l2 = gpu.device.get_attribute(gpu.cuda.device_attribute.L2_CACHE_SIZE)
    flush = gpu.cuda.mem_alloc(FLUSH_FACTOR * l2)
    meter = EnergyMeter()  # also keeps NVML open for gpu_state's reads
    rows = []
    try:
        for n in job.family.sizes:
            if not job.variant.accepts_size(n):
                rows.append({col.SIZE: n, col.STATUS: Status.UNSUPPORTED})
                continue
            alone, others = wait_until_alone(settings)
            if not alone:
                rows.append(
                    {
                        col.SIZE: n,
                        col.STATUS: Status.GPU_BUSY,
                        col.OTHER_PROCESSES: others,
                    }
                )
                continue
            rows.append(_time_size(gpu, job, n, (settings, spin, flush, l2), meter))
    finally:
        meter.close()
        flush.free()
    return rows


def _time_size(
    gpu: "GpuContext",
    job: "Job",
    n: int,
    tools: tuple[TimingSettings, Any, Any, int],
    meter: EnergyMeter,
) -> dict[str, Any]:
    settings, spin, flush, l2 = tools
    launcher = job.setup(gpu, n)
    first = fresh_outputs(launcher)  # compared with the outputs after timing
    for _ in range(settings.warmup):
        launcher.launch()
    launcher.synchronize()
    cold = is_cold(settings.cache, job.family.ideal_bytes(launcher.sizes), l2)
    runner = Batch(gpu, launcher, spin, flush if cold else None, l2)
    before = gpu_state()
    samples, settled = sample_until_settled(runner.run, settings)
    after = gpu_state()
    again = recheck(first, fresh_outputs(launcher), job.family.tolerance)
    stats = summarize(samples)
    stream = Stream(launcher.launch, lambda: _recorded(gpu.cuda.Event()))
    energy = measure_energy(meter, stream, stats[col.TIME_MEDIAN_US])
    energy_state = gpu_state()
    launcher.free()
    return {
        col.SIZE: n,
        col.STATUS: Status.OK,
        col.CACHE: "cold" if cold else "hot",
        **stats,
        "samples_ns": encode_samples(samples),
        col.SETTLED: settled,
        "gpu_before": before,
        "gpu_after": after,
        col.THROTTLED: throttled(before, after),
        "verified_after": again,
        **row_fields(energy, energy_state),
        **generated_of(launcher),
    }


def fresh_outputs(launcher: "Launcher") -> dict[str, np.ndarray]:
    """One launch from the outputs' initial fill, copied back to the host.

    From the initial fill (sentinel or zero, as verify launches it), so that a kernel
    that accumulates into its output (atomics) gives the same result each time; the
    inputs are those the timed launches ran on, so a kernel that writes its inputs
    shows too.
    """
    launcher.initialize_buffers()
    launcher.launch()
    launcher.synchronize()
    return launcher.outputs()


def recheck(
    before: dict[str, np.ndarray], after: dict[str, np.ndarray], tolerance: float
) -> dict[str, Any]:
    """``verified_after``: the outputs after the timed repetitions against before.

    The copy before timing is the reference (float64, as :func:`compare` wants): the
    verify phase compared such a launch with the family's reference at its sizes;
    here the question is only whether timing changed what the kernel computes.
    """
    from nsightflow.gpu.verify import compare  # integers: compared exactly

    return recheck_record(
        {
            name: compare(out, before[name].astype(np.float64), tolerance)
            for name, out in after.items()
        }
    )


def _recorded(event: Any) -> Any:
    event.record()
    return event
