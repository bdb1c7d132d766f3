"""Energy per launch from NVML's total-energy counter (millijoules since driver load).

On the H200 machine the counter moves in steps 100 ms apart (99.9 ms median, idle and
busy) and one read takes 3.5 ms, so a window shorter than a few steps says little.
Per size, after its timed batches, the time stage runs the variant's launches back to
back (hot cache, no events between them, the host keeping a few chunks queued) and,
while they run, reads the counter until it has stepped ``ENERGY_STEPS`` times after
the first step it sees: the window runs from one step to another, so both ends are
known to within about one read. Power is the energy between those steps over their
time; energy per launch is that power times the GPU time per launch of the same
stream (events around the whole stream, over its launches), which counts the gaps
too where the host cannot keep the GPU busy: ``busy`` (the timed median over that
time per launch) says how much. Where NVML or its counter is missing the record says
``not_recorded`` and why; nothing fails.
"""

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col

ENERGY_STEPS = 2  # counter steps the window spans (~200 ms on the H200)
CHUNK_S = 0.004  # GPU time of one queued chunk of launches
QUEUED = 3  # chunks the host keeps queued ahead of the GPU
WARM_S = 0.02  # the stream runs this long before a step may open the window
MAX_CHUNK = 500  # launches per chunk (the driver's queue holds about a thousand)
STEP_WAIT_S = 1.0  # a counter that has not moved for this long is not read as energy


class EnergyMeter:
    """NVML's total-energy counter of this job's GPU; ``reason`` says why not.

    Keeps NVML initialised while open: the stage's other NVML reads (clocks, other
    processes) then skip NVML's start-up (about 0.1 s each on the H200 machine).
    """

    def __init__(self) -> None:
        self.reason = ""
        self._nvml: Any = None
        try:
            import pynvml
        except ImportError:
            self.reason = "NVML unavailable (pip install nvidia-ml-py)"
            return
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError as exc:
            self.reason = f"NVML unavailable: {exc}"
            return
        from nsightflow.machine.gpulock import nvml_handle

        self._nvml = pynvml
        try:
            self._handle = nvml_handle(pynvml)
            pynvml.nvmlDeviceGetTotalEnergyConsumption(self._handle)
        except pynvml.NVMLError as exc:
            self.reason = f"this GPU has no NVML total-energy counter ({exc})"

    @property
    def ok(self) -> bool:
        """Whether the counter can be read."""
        return not self.reason

    def read_mj(self) -> int:
        """The counter, in millijoules."""
        return int(self._nvml.nvmlDeviceGetTotalEnergyConsumption(self._handle))

    def close(self) -> None:
        """Release this meter's hold on NVML."""
        if self._nvml is not None:
            self._nvml.nvmlShutdown()
            self._nvml = None


@dataclass(frozen=True)
class Stream:
    """What the energy window drives: the variant's launches and CUDA events."""

    launch: Callable[[], None]  # queue one launch of the variant (all its kernels)
    event: Callable[[], Any]  # a recorded CUDA event (query, synchronize, time_till)


def window_power(steps: list[tuple[float, int]]) -> tuple[float, float]:
    """Seconds and watts between the first and the last counter step seen.

    Args:
        steps: (host time in s, counter in mJ) at each step, in order.
    """
    (t0, e0), (t1, e1) = steps[0], steps[-1]
    seconds = t1 - t0
    return seconds, (e1 - e0) / 1000.0 / seconds if seconds > 0 else float("nan")


def measure_energy(
    meter: EnergyMeter, stream: Stream, median_us: float, steps: int = ENERGY_STEPS
) -> dict[str, Any]:
    """Energy per launch of a back-to-back stream, over ``steps`` counter steps.

    Args:
        meter: the open counter (its ``reason`` is recorded when it cannot be read).
        stream: the variant's launch and an event maker.
        median_us: the timed median at this size (sizes the chunks; ``busy``).
        steps: counter steps the window spans.

    Returns:
        ``status`` ``ok`` with ``j_per_launch``, ``power_w``, ``window_s``,
        ``launches`` (the stream's), ``per_launch_us`` (its GPU time per launch),
        ``busy``; or ``not_recorded`` with ``message``.
    """
    if not meter.ok:
        return {col.STATUS: Status.NOT_RECORDED, col.MESSAGE: meter.reason}
    chunk = max(1, min(MAX_CHUNK, round(CHUNK_S * 1e6 / max(median_us, 0.1))))
    first, launches = stream.event(), 0
    queued: deque[Any] = deque()
    seen: list[tuple[float, int]] = []
    start = time.perf_counter()
    last, last_at, changed_at = meter.read_mj(), start, start
    while len(seen) <= steps:
        while queued and queued[0].query():
            queued.popleft()
        while len(queued) < QUEUED:
            launches += _chunk(stream, chunk)
            queued.append(stream.event())
        before = time.perf_counter()
        value = meter.read_mj()
        now = time.perf_counter()
        if value != last:
            if before - start >= WARM_S:  # the step fell between the two reads
                seen.append(((last_at + now) / 2, value))
            last, changed_at = value, now
        elif now - changed_at > STEP_WAIT_S:
            stream.event().synchronize()
            return {
                col.STATUS: Status.NOT_RECORDED,
                col.MESSAGE: f"the energy counter did not move for {STEP_WAIT_S:g} s",
            }
        last_at = now
    end = stream.event()
    end.synchronize()
    per_launch_us = first.time_till(end) * 1000.0 / launches
    seconds, watts = window_power(seen)
    return {
        col.STATUS: Status.OK,
        "j_per_launch": watts * per_launch_us * 1e-6,
        "power_w": watts,
        "window_s": seconds,
        "steps": len(seen) - 1,
        "launches": launches,
        "per_launch_us": per_launch_us,
        "busy": median_us / per_launch_us if per_launch_us > 0 else float("nan"),
        col.CACHE: "hot",
    }


def _chunk(stream: Stream, most: int) -> int:
    """Queue up to ``most`` launches, stopping after ``CHUNK_S`` of host time.

    The host then reads the counter often even where launching is slower than the
    kernels (those launches run with gaps: ``busy`` shows it).
    """
    until = time.perf_counter() + CHUNK_S
    for done in range(1, most + 1):
        stream.launch()
        if time.perf_counter() > until:
            return done
    return most


def row_fields(energy: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    """The time row's energy fields: the flat columns and the whole record.

    ``state`` is the NVML snapshot after the window (clocks, power, temperature).
    """
    record = {**energy, "gpu_after": state}
    if energy.get(col.STATUS) != Status.OK:
        return {"energy": record}
    return {
        col.ENERGY_J_PER_LAUNCH: energy["j_per_launch"],
        col.ENERGY_POWER_W: energy["power_w"],
        col.ENERGY_BUSY: energy["busy"],
        "energy": record,
    }
