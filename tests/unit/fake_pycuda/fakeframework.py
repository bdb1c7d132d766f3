"""A stand-in GPU framework for the fake pycuda: arrays through the CUDA array interface.

Only for CPU tests of Python launchers (tests/data/families/fakelaunch). Under the fake
pycuda a "device address" is a host address, so ``asarray`` maps it as numpy does
through ``__array_interface__``; ``run`` advances the fake GPU clock by the work's
cost, as a kernel would take time. Nothing it computes is a measurement.
"""

import ctypes

import numpy as np
import pycuda.driver as fake


def asarray(obj: object) -> np.ndarray:
    """A writable numpy view of an object exposing ``__cuda_array_interface__``."""
    cai = obj.__cuda_array_interface__  # type: ignore[attr-defined]
    dtype = np.dtype(cai["typestr"])
    count = int(np.prod(cai["shape"]))
    raw = (ctypes.c_byte * (count * dtype.itemsize)).from_address(cai["data"][0])
    return np.frombuffer(raw, dtype=dtype).reshape(cai["shape"])


def run(cost_us: float) -> None:
    """One "kernel" of ``cost_us`` microseconds on the fake clock."""
    fake._State.clock_us += cost_us
