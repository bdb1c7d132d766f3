"""A CPU stand-in for pynvml (nvidia-ml-py): one GPU, a fake energy counter.

Only what nsightflow calls. The total-energy counter steps every STEP_S seconds of
real time by WATTS x STEP_S (in millijoules), as the H200's steps every 100 ms; a
read takes no time. FAKE_NVML_NO_ENERGY=1 makes the counter unsupported, as on GPUs
without one. Nothing here is a measurement.
"""

import os
import time

WATTS = 250.0
STEP_S = 0.02
NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2
NVML_TEMPERATURE_GPU = 0
_start = [0.0]
_refs = [0]


class NVMLError(Exception):
    pass


class NVMLError_NotSupported(NVMLError):
    pass


def nvmlInit() -> None:
    if not _refs[0]:
        _start[0] = time.perf_counter()
    _refs[0] += 1


def nvmlShutdown() -> None:
    _refs[0] = max(0, _refs[0] - 1)


def _need() -> None:
    if not _refs[0]:
        raise NVMLError("Uninitialized")


def nvmlDeviceGetCount() -> int:
    return 1


def nvmlDeviceGetHandleByIndex(index: int) -> str:
    _need()
    return f"gpu{index}"


def nvmlDeviceGetHandleByUUID(uuid: str) -> str:
    _need()
    return uuid


def nvmlDeviceGetTotalEnergyConsumption(handle: str) -> int:
    _need()
    if os.environ.get("FAKE_NVML_NO_ENERGY"):
        raise NVMLError_NotSupported("Not Supported")
    steps = int((time.perf_counter() - _start[0]) / STEP_S)
    return 10_000_000 + round(steps * STEP_S * WATTS * 1000)


def nvmlDeviceGetClockInfo(handle: str, kind: int) -> int:
    return 1980 if kind == NVML_CLOCK_SM else 3201


def nvmlDeviceGetTemperature(handle: str, kind: int) -> int:
    return 40


def nvmlDeviceGetPowerUsage(handle: str) -> int:
    return int(WATTS * 1000)


def nvmlDeviceGetCurrentClocksEventReasons(handle: str) -> int:
    return 0


def nvmlDeviceGetComputeRunningProcesses(handle: str) -> list:
    return []


def nvmlDeviceGetName(handle: str) -> str:
    return "Fake GPU (CPU stand-in)"


def nvmlSystemGetDriverVersion() -> str:
    return "0.0"


def nvmlSystemGetCudaDriverVersion_v2() -> int:
    return 13000
