"""The one launcher every GPU stage uses (pycuda).

It loads a cubin, builds inputs from the family's generator, launches with the
manifest's grid and block, and copies back.

verify, time and profile all go through :class:`Launcher`, so what is profiled is
exactly what was verified and timed. pycuda is imported lazily: CPU machines never
need it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from nsightflow.errors import GpuUnavailableError
from nsightflow.registry import Family, Variant

_TYPECHAR = {"float32": "f", "float64": "d", "int32": "i", "int64": "q", "uint32": "I"}


def _cuda() -> ModuleType:
    try:
        import pycuda.driver as cuda
    except ImportError as exc:
        raise GpuUnavailableError(
            "pycuda is not installed: pip install -e '.[gpu]' on a machine with a CUDA "
            "GPU, or run in replay mode (config: mode: replay); `nsightflow doctor` "
            "lists what this machine lacks"
        ) from exc
    return cuda  # type: ignore[no-any-return]


def poison(shape: tuple[int, ...], dtype: str) -> np.ndarray:
    """Output buffer filled with a value no correct kernel writes (NaN or a sentinel)."""
    dt = np.dtype(dtype)
    fill: float | int = np.nan if dt.kind == "f" else np.iinfo(dt).max
    return np.full(shape, fill, dtype=dt)


class GpuContext:
    """A CUDA context on device 0, usable as a context manager."""

    def __init__(self) -> None:
        self.cuda = _cuda()
        try:
            self.cuda.init()
            if self.cuda.Device.count() == 0:
                raise GpuUnavailableError(
                    "no CUDA device visible; run `nsightflow doctor`"
                )
            self.device = self.cuda.Device(0)
            self.ctx = self.device.make_context()
        except self.cuda.Error as exc:
            raise GpuUnavailableError(f"cannot open a CUDA context: {exc}") from exc

    def __enter__(self) -> GpuContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.ctx.pop()
        self.ctx.detach()


@dataclass
class Launcher:
    """One variant at one size: buffers on the device and a prepared kernel."""

    gpu: GpuContext
    family: Family
    variant: Variant
    cubin: Path
    n: int
    inputs: dict[str, np.ndarray] = field(default_factory=dict)
    _buffers: dict[str, Any] = field(default_factory=dict)
    _func: Any = None
    _module: Any = None
    _call: tuple[Any, ...] = ()

    def setup(self, rng: np.random.Generator, fill: str = "poison") -> None:
        """Load the cubin, generate inputs and allocate every buffer.

        Outputs are poisoned (``fill="poison"``: a host copy of NaN) for
        verification, or zeroed on the device (``fill="zero"``), as a program would.
        """
        cuda = self.gpu.cuda
        self._module = cuda.module_from_file(str(self.cubin))
        self._func = self._module.get_function(self.variant.kernel)
        self.inputs = self.family.generator()(self.n, rng)
        where = f"{self.family.folder / 'family.yaml'}: args"
        for arg in self.family.args:
            if arg.role == "input":
                if arg.name not in self.inputs:
                    raise GpuUnavailableError(
                        f"{self.family.folder / 'reference.py'}: generate() returned no "
                        f"{arg.name!r} (declared as an input in {where})"
                    )
                array = np.ascontiguousarray(self.inputs[arg.name], dtype=arg.dtype)
                self._buffers[arg.name] = cuda.to_device(array)
            elif arg.role == "output":
                shape = arg.shape_for(self.n, where)
                self._buffers[arg.name] = cuda.mem_alloc(
                    poison(shape, arg.dtype).nbytes
                )
        self._func.prepare(
            "".join(
                _TYPECHAR[a.dtype] if a.role == "scalar" else "P"
                for a in self.family.args
            )
        )
        grid, block = self.variant.launch_shape(self.n)
        # Everything a launch needs, computed once: launches sit in timing loops.
        self._call = (grid, block, self.variant.dynamic_shared(self.n), self._args())
        if fill == "zero":
            self.zero_outputs()
        else:
            self.poison_outputs()

    def poison_outputs(self) -> None:
        """Overwrite every output buffer with the poison value."""
        where = f"{self.family.folder / 'family.yaml'}: args"
        for arg in self.family.args:
            if arg.role == "output":
                self.gpu.cuda.memcpy_htod(
                    self._buffers[arg.name],
                    poison(arg.shape_for(self.n, where), arg.dtype),
                )

    def zero_outputs(self) -> None:
        """Set every output buffer to zero on the device (cuMemsetD8, no host copy)."""
        where = f"{self.family.folder / 'family.yaml'}: args"
        for arg in self.family.args:
            if arg.role == "output":
                shape = arg.shape_for(self.n, where)
                nbytes = int(np.prod(shape)) * np.dtype(arg.dtype).itemsize
                self.gpu.cuda.memset_d8(self._buffers[arg.name], 0, nbytes)

    def _args(self) -> list[Any]:
        from nsightflow.expr import evaluate

        values: list[Any] = []
        for arg in self.family.args:
            if arg.role == "scalar":
                raw = evaluate(str(arg.value), {"n": self.n}, f"args.{arg.name}.value")
                values.append(np.dtype(arg.dtype).type(raw))
            else:
                values.append(self._buffers[arg.name])
        return values

    def launch(self, stream: Any = None) -> None:
        """One asynchronous launch with the manifest's grid and block."""
        grid, block, shared, args = self._call
        self._func.prepared_async_call(grid, block, stream, *args, shared_size=shared)

    def synchronize(self) -> None:
        """Wait for the device; a kernel fault raises here."""
        self.gpu.ctx.synchronize()

    def outputs(self) -> dict[str, np.ndarray]:
        """Copy every output back to the host."""
        where = f"{self.family.folder / 'family.yaml'}: args"
        result = {}
        for arg in self.family.args:
            if arg.role == "output":
                host = np.empty(arg.shape_for(self.n, where), dtype=arg.dtype)
                self.gpu.cuda.memcpy_dtoh(host, self._buffers[arg.name])
                result[arg.name] = host
        return result

    def free(self) -> None:
        """Release device buffers."""
        for buf in self._buffers.values():
            buf.free()
        self._buffers.clear()


def load_helpers(gpu: GpuContext) -> Any:
    """Nsightflow's own helper kernels (``cuda/helpers.cu``), built for this GPU."""
    import subprocess
    import tempfile

    source = Path(__file__).parent / "cuda" / "helpers.cu"
    with tempfile.TemporaryDirectory() as tmp:
        cubin = Path(tmp) / "helpers.cubin"
        proc = subprocess.run(
            ["nvcc", "-arch=native", "-cubin", "-O3", "-o", str(cubin), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise GpuUnavailableError(f"nvcc could not build {source}: {proc.stderr}")
        return gpu.cuda.module_from_file(str(cubin))
