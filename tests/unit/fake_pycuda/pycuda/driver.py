"""A CPU stand-in for pycuda.driver: device memory is numpy, kernels are Python.

Only what nsightflow's launcher and sweep worker call. The one kernel it knows is the
sweepy test family's ``axpb_modes``, which reads MODE and BLOCK from its cubin's name
(``BLOCK256_MODE3.cubin``) and behaves as the real one would: 0 and 6 compute
y = 2x + 1, 1 forgets the + 1, 7 forgets it from its 17th launch of the process on
(right when verified, wrong once timed), 3 poisons the context (an illegal address, raised at
the next synchronize), 4 never ends. A launch with more than 1,024 threads per block
or more than 48 KB of dynamic shared memory raises LogicError as the driver does.
Time runs on a fake clock: a launch of BLOCK threads per block takes 10 + BLOCK / 64
microseconds.
"""

import re
import time
from pathlib import Path

import numpy as np


class Error(Exception):
    pass


class LogicError(Error):
    pass


class LaunchError(Error):
    pass


class _State:
    clock_us = 0.0
    launches = 0  # of axpb_modes in this process (MODE 7 turns wrong after 16)
    poisoned = False
    hang = False


def _check() -> None:
    if _State.poisoned:
        raise LaunchError(
            "cuCtxSynchronize failed: an illegal memory access was encountered"
        )


def init() -> None:
    pass


class device_attribute:  # pycuda's name
    L2_CACHE_SIZE = "l2"


class _Context:
    def synchronize(self) -> None:
        if _State.hang:
            while True:
                time.sleep(1)
        _check()

    def pop(self) -> None:
        pass

    def push(self) -> None:
        pass

    def detach(self) -> None:
        pass


class Device:
    def __init__(self, index: int) -> None:
        self.index = index

    @staticmethod
    def count() -> int:
        return 1

    def make_context(self) -> _Context:
        return _Context()

    def retain_primary_context(self) -> _Context:
        return _Context()

    def get_attribute(self, attr: str) -> int:
        return 1 << 20

    def compute_capability(self) -> tuple[int, int]:
        return (9, 0)


class DeviceAllocation:
    def __init__(self, nbytes: int) -> None:
        self.data = np.zeros(max(nbytes, 1), dtype=np.uint8)

    def free(self) -> None:
        _check()

    def __int__(self) -> int:  # a device address: here the host buffer's
        return int(self.data.ctypes.data)


class _Profiler:
    running = False


def start_profiler() -> None:
    _Profiler.running = True


def stop_profiler() -> None:
    _Profiler.running = False


def mem_alloc(nbytes: int) -> DeviceAllocation:
    _check()
    return DeviceAllocation(int(nbytes))


def to_device(array: np.ndarray) -> DeviceAllocation:
    buf = DeviceAllocation(array.nbytes)
    buf.data[: array.nbytes] = np.frombuffer(
        np.ascontiguousarray(array).tobytes(), np.uint8
    )
    return buf


def memcpy_htod(dst: DeviceAllocation, src: np.ndarray) -> None:
    _check()
    raw = np.frombuffer(np.ascontiguousarray(src).tobytes(), np.uint8)
    dst.data[: raw.size] = raw


def memcpy_dtoh(dst: np.ndarray, src: DeviceAllocation) -> None:
    _check()
    flat = dst.reshape(-1)
    flat[:] = src.data[: dst.nbytes].view(dst.dtype)


def memset_d8(dst: DeviceAllocation, value: int, count: int) -> None:
    dst.data[:count] = value


def memset_d32_async(
    dst: DeviceAllocation, value: int, count: int, stream: object = None
) -> None:
    _State.clock_us += 1.0


class Event:
    def __init__(self) -> None:
        self.t = 0.0

    def record(self, stream: object = None) -> None:
        self.t = _State.clock_us

    def synchronize(self) -> None:
        _Context().synchronize()

    def query(self) -> bool:
        return True  # the fake clock has run every queued launch already

    def time_till(self, other: "Event") -> float:
        return (other.t - self.t) / 1000.0  # ms


class Function:
    def __init__(self, name: str, config: dict[str, int]) -> None:
        self.name, self.config = name, config

    def prepare(self, signature: str) -> None:
        self.signature = signature

    def __call__(
        self,
        *args: object,
        block: tuple = (1, 1, 1),
        grid: tuple = (1, 1),
        **kw: object,
    ) -> None:
        pass  # the helpers' spin kernel

    def prepared_async_call(self, grid, block, stream, *args, shared_size=0):
        _check()
        if int(np.prod(block)) > 1024 or shared_size > 48 * 1024:
            raise LogicError("cuLaunchKernel failed: invalid argument")
        mode = self.config.get("MODE", 0)
        _State.clock_us += 10.0 + self.config.get("BLOCK", 256) / 64
        if mode == 3:
            _State.poisoned = True
            return
        if mode == 4:
            _State.hang = True
            return
        x, y, n = args
        xs = x.data[: 4 * int(n)].view(np.float32)
        ys = y.data[: 4 * int(n)].view(np.float32)
        _State.launches += 1
        late = mode == 7 and _State.launches > 16  # right only while few launches ran
        ys[:] = 2.0 * xs + (0.0 if mode == 1 or late else 1.0)


class Module:
    def __init__(self, path: str) -> None:
        self.config = {
            k: int(v) for k, v in re.findall(r"([A-Z]+)(\d+)", Path(path).stem)
        }

    def get_function(self, name: str) -> Function:
        return Function(name, self.config)

    def get_global(self, name: str) -> tuple:
        raise LogicError(f"no global {name}")


def module_from_file(path: str) -> Module:
    _check()
    if not Path(path).is_file():
        raise LogicError(f"cannot load {path}")
    return Module(path)
