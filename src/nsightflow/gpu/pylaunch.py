"""The GPU side of Python launchers: their buffers shared with a framework, their calls.

A Python launcher variant (:mod:`nsightflow.family.pylauncher`) runs through
:class:`PythonLauncher`, the :class:`~nsightflow.gpu.launch.Launcher` with the
framework's callable in place of the cubin's launches. Its buffers are the ones the
launcher allocates for every variant (pycuda, in the device's primary context, which
the CUDA runtime under PyTorch, CuPy and Triton shares), handed to the launcher's
``prepare(args)`` as :class:`DeviceArray` objects: each exposes the CUDA array
interface (version 3), so frameworks wrap it without a copy. What ``prepare`` returns
is called where a CUDA variant's launches are issued, on the legacy default stream
the frameworks use unless told otherwise: verify checks its outputs, time queues it
between CUDA events behind the spin kernel like any variant (all its launches between
one pair of events), and profile runs it under ncu.

``setup`` calls it once before anything is checked or timed (Triton compiles and
autotunes on its first call, cuBLAS picks its kernels) and initialises the buffers
again after it. Under ncu (``NSIGHTFLOW_PROFILE_RANGE=1``, set by the profile
stage's command line) each call runs between ``cuProfilerStart`` and
``cuProfilerStop`` inside an NVTX range, and ncu runs with ``--profile-from-start
off``: it profiles every kernel the call launched, whatever the framework named them,
and nothing of the warm-up.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from nsightflow.errors import FrameworkMissingError, ManifestError
from nsightflow.family.inputs import GeneratedInputs, plan_buffers
from nsightflow.family.pylauncher import ENTRY, missing_message, missing_modules
from nsightflow.family.registry import Family, Variant
from nsightflow.gpu.launch import GpuContext, Launcher

# Set in the environment of a launcher process run under ncu (tools.ncu.ncu_argv).
RANGE_ENV = "NSIGHTFLOW_PROFILE_RANGE"
_MODULES: dict[Path, ModuleType] = {}  # one import per launcher file and process


@dataclass(frozen=True)
class DeviceArray:
    """A device buffer nsightflow allocated, shared through the CUDA array interface.

    ``torch.as_tensor(a, device="cuda")``, ``cupy.asarray(a)`` and numba take it
    without a copy; ``ptr`` is the device address for anything else.
    """

    name: str
    allocation: Any  # pycuda DeviceAllocation
    shape: tuple[int, ...]
    dtype: str

    @property
    def ptr(self) -> int:
        """The device address."""
        return int(self.allocation)

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """Version 3 of the interface; no stream: the launcher synchronizes itself."""
        return {
            "shape": self.shape,
            "typestr": np.dtype(self.dtype).str,
            "data": (self.ptr, False),
            "strides": None,
            "version": 3,
        }


def load_prepare(variant: Variant) -> Callable[[dict[str, Any]], Any]:
    """The launcher file's ``prepare``, its module imported once per process.

    Raises:
        FrameworkMissingError: a required module is not installed, or the launcher's
            imports fail here.
        ManifestError: the file defines no callable ``prepare``.
    """
    missing = missing_modules(variant.requires)
    if missing:
        raise FrameworkMissingError(missing_message(variant, missing))
    path = variant.source.resolve()
    module = _MODULES.get(path)
    if module is None:
        name = f"nsightflow_launcher_{variant.family}_{variant.name}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ManifestError(f"{path}: cannot be imported as a Python module")
        module = importlib.util.module_from_spec(spec)
        try:
            spec.loader.exec_module(module)
        except ImportError as exc:
            raise FrameworkMissingError(
                f"{variant.source.name}: an import failed here ({exc}); install what "
                "it needs and name it under requires in family.yaml"
            ) from exc
        _MODULES[path] = module
    prepare = getattr(module, ENTRY, None)
    if not callable(prepare):
        raise ManifestError(f"{path}: defines no function {ENTRY}(args)")
    return prepare  # type: ignore[no-any-return]


@dataclass
class PythonLauncher(Launcher):
    """A Python launcher variant at one size: nsightflow's buffers, the framework's call."""

    ranged: bool = False
    _call: Callable[[], Any] | None = None

    def setup(
        self,
        rng: np.random.Generator,
        fill: str = "poison",
        inputs: GeneratedInputs | None = None,
    ) -> None:
        """Allocate the buffers, ``prepare`` the call, run it once, fill again.

        Raises:
            FrameworkMissingError: the launcher's framework cannot be imported here.
        """
        prepare = load_prepare(self.variant)
        self.allocate(rng, inputs)
        call = prepare(self.arguments())
        if not callable(call):
            raise ManifestError(
                f"{self.variant.source}: {ENTRY}(args) returned "
                f"{type(call).__name__}; return a function without arguments that "
                "launches the kernels"
            )
        self._call = call
        call()  # the first call compiles, autotunes and picks library kernels
        self.synchronize()
        self.fill(fill)
        self.ranged = os.environ.get(RANGE_ENV) == "1"

    def arguments(self) -> dict[str, Any]:
        """Every family arg and scratch buffer: arrays as DeviceArray, scalars as numbers."""
        where = f"{self.family.folder / 'family.yaml'}: args"
        plan = plan_buffers(self.family, self.variant)
        args: dict[str, Any] = {}
        for arg in (*self.family.args, *self.variant.scratch):
            if arg.role == "scalar":
                args[arg.name] = arg.value_for(self.sizes, where).item()
            elif arg in (*plan.uploads, *plan.allocations):
                shape = arg.shape_for(self.sizes, where)
                args[arg.name] = DeviceArray(
                    arg.name, self._buffers[arg.name], shape, arg.dtype
                )
        return args

    def launch(self, stream: Any = None) -> None:
        """One call of the launcher's callable: all of its launches, on its stream."""
        if self._call is None:
            raise ManifestError(f"{self.variant.where}: launch() before setup()")
        if not self.ranged:
            self._call()
            return
        with self._profiled():
            self._call()

    @contextmanager
    def _profiled(self) -> Iterator[None]:
        """The call between cuProfilerStart/Stop and in an NVTX range (torch's)."""
        nvtx = _nvtx()
        label = f"nsightflow/{self.family.name}/{self.variant.name}/n={self.n}"
        if nvtx is not None:
            nvtx.range_push(label)
        self.gpu.cuda.start_profiler()
        try:
            yield
            self.synchronize()
        finally:
            self.gpu.cuda.stop_profiler()
            if nvtx is not None:
                nvtx.range_pop()

    def switch(self, variant: Variant, cubin: Path) -> None:
        """Python launchers declare no parameters: nothing to sweep."""
        raise ManifestError(
            f"{variant.where}: a Python launcher has no params to sweep"
        )


def _nvtx() -> Any:
    """torch.cuda.nvtx where the launcher imported torch, else None."""
    torch = sys.modules.get("torch")
    return getattr(getattr(torch, "cuda", None), "nvtx", None)


def launcher_for(
    gpu: GpuContext, family: Family, variant: Variant, cubin: Path, n: int
) -> Launcher:
    """The launcher of any variant: a cubin's, or a Python launcher's."""
    if variant.is_python:
        return PythonLauncher(gpu, family, variant, cubin, n)
    return Launcher(gpu, family, variant, cubin, n)
