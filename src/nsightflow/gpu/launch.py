"""The one launcher every GPU stage uses (pycuda).

It loads a cubin, builds inputs from the family's generator, copies constants to their
``__constant__`` symbols, initialises outputs and scratch (sentinel or zero), runs the
variant's launches in order with the manifest's grids and blocks, and copies back.

verify, time and profile all go through :class:`Launcher`, so what is profiled is
exactly what was verified and timed. pycuda is imported lazily: CPU machines never
need it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from nsightflow.errors import GpuUnavailableError, ManifestError
from nsightflow.family.inputs import (
    BufferPlan,
    GeneratedInputs,
    call_generator,
    host_array,
    initial_fill,
    plan_buffers,
    sizes_of,
)
from nsightflow.family.reference_cache import ReferenceCache
from nsightflow.family.registry import Arg, Family, Launch, Variant

# Inputs of the family this worker process runs, shared by every launcher that sets
# up without inputs of its own (:func:`use_inputs_cache`).
_INPUTS: list[ReferenceCache] = []

_TYPECHAR = {
    "float32": "f",
    "float64": "d",
    "int32": "i",
    "int64": "q",
    "uint32": "I",
    "uint8": "B",
}


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
    return initial_fill(dtype, "sentinel", shape)


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
            # The device's primary context, the one the CUDA runtime uses: a Python
            # launcher's framework (PyTorch, CuPy, Triton) launches into the same
            # context as the buffers allocated here (pycuda.autoprimaryctx does this).
            self.ctx = self.device.retain_primary_context()
            self.ctx.push()
        except self.cuda.Error as exc:
            raise GpuUnavailableError(f"cannot open a CUDA context: {exc}") from exc

    def __enter__(self) -> GpuContext:
        return self

    def __exit__(self, *exc: object) -> None:
        self.ctx.pop()
        self.ctx.detach()


@dataclass(frozen=True)
class Job:
    """One variant's GPU work: what it is, its cubin, its seed and its inputs' cache."""

    family: Family
    variant: Variant
    cubin: Path
    seed: int
    cache: ReferenceCache
    # Makes the variant's launcher: a cubin's, or a Python launcher's (gpu.pylaunch).
    make: Callable[[GpuContext, Family, Variant, Path, int], Launcher] | None = None

    def setup(self, gpu: GpuContext, n: int, fill: str = "poison") -> Launcher:
        """A launcher at size ``n``, set up on the cached (or freshly made) inputs."""
        make = self.make or Launcher
        launcher = make(gpu, self.family, self.variant, self.cubin, n)
        inputs = self.cache.inputs(self.variant, n)
        launcher.setup(np.random.default_rng([self.seed, n]), fill, inputs)
        return launcher


@dataclass
class Launcher:
    """One variant at one size: buffers on the device and its prepared launches."""

    gpu: GpuContext
    family: Family
    variant: Variant
    cubin: Path
    n: int
    inputs: GeneratedInputs = field(default_factory=lambda: GeneratedInputs({}, ""))
    sizes: dict[str, int] = field(default_factory=dict)
    _buffers: dict[str, Any] = field(default_factory=dict)
    _fills: dict[str, tuple[Arg, tuple[int, ...]]] = field(default_factory=dict)
    _module: Any = None
    _calls: list[tuple[Any, ...]] = field(default_factory=list)

    def setup(
        self,
        rng: np.random.Generator,
        fill: str = "poison",
        inputs: GeneratedInputs | None = None,
    ) -> None:
        """Load the cubin, generate inputs and allocate every buffer.

        ``fill="poison"`` (verification): outputs and scratch are initialised as the
        variant declares, a sentinel (host copy of NaN or the type's largest value) or
        zero. ``fill="zero"``: all of them zeroed on the device, as a program would.
        ``inputs``: the generator's result at this size, made already (a
        :class:`~nsightflow.family.reference_cache.ReferenceCache`); else the cache
        set by :func:`use_inputs_cache` for this family, else ``rng`` generates them.
        """
        self._module = self.gpu.cuda.module_from_file(str(self.cubin))
        plan = self.allocate(rng, inputs)
        for arg in plan.constants:
            self._copy_constant(arg)
        # Everything a launch needs, computed once: launches sit in timing loops.
        # A launch with an empty grid has nothing to do at this size (e.g. no COO part).
        calls = [self._prepare(launch) for launch in self.variant.launches]
        self._calls = [c for c in calls if min(c[1]) > 0]
        self.fill(fill)

    def allocate(
        self, rng: np.random.Generator, inputs: GeneratedInputs | None = None
    ) -> BufferPlan:
        """Take or generate the inputs, upload them and allocate outputs and scratch."""
        cuda = self.gpu.cuda
        cached = [c for c in _INPUTS if c.family.folder == self.family.folder]
        if inputs is None and cached:
            inputs = cached[0].inputs(self.variant, self.n)
        self.inputs = inputs or call_generator(
            self.family.generator(), self.family, self.variant, self.n, rng
        )
        self.sizes = sizes_of(self.family, self.n, self.inputs)
        plan = plan_buffers(self.family, self.variant)
        where = f"{self.family.folder / 'family.yaml'}: args"
        for arg in plan.uploads:
            array = host_array(self.family, arg, self.inputs, self.sizes)
            # an empty input (e.g. no COO part) still gets a valid pointer
            self._buffers[arg.name] = cuda.to_device(
                array if array.size else np.zeros(1, array.dtype)
            )
        for arg in plan.allocations:
            shape = arg.shape_for(self.sizes, where)
            self._fills[arg.name] = (arg, shape)
            nbytes = max(int(np.prod(shape)), 1) * np.dtype(arg.dtype).itemsize
            self._buffers[arg.name] = cuda.mem_alloc(nbytes)
        return plan

    def fill(self, how: str) -> None:
        """Outputs and scratch before a run: ``poison`` (as declared) or ``zero``."""
        if how == "zero":
            self.zero_outputs()
        else:
            self.initialize_buffers()

    def switch(self, variant: Variant, cubin: Path) -> None:
        """Run another configuration of the variant on the same buffers (a sweep).

        Loads ``cubin``, copies the constants to its symbols and prepares its
        launches; inputs, outputs and scratch stay as they are (their shapes depend
        on the sizes only, never on a variant's parameters).
        """
        self.variant, self.cubin = variant, cubin
        self._module = self.gpu.cuda.module_from_file(str(cubin))
        for arg in plan_buffers(self.family, variant).constants:
            self._copy_constant(arg)
        calls = [self._prepare(launch) for launch in variant.launches]
        self._calls = [c for c in calls if min(c[1]) > 0]

    def _copy_constant(self, arg: Arg) -> None:
        """Copy a generated array to the module's ``__constant__`` symbol ``arg.name``."""
        array = host_array(self.family, arg, self.inputs, self.sizes)
        try:
            symbol, size = self._module.get_global(arg.name)
        except self.gpu.cuda.Error as exc:
            raise ManifestError(
                f"{self.variant.source}: no __constant__ symbol {arg.name!r} (declared "
                f"as a constant in {self.family.folder / 'family.yaml'}); declare "
                f"`__constant__ {arg.dtype} {arg.name}[...]` at file scope"
            ) from exc
        if array.nbytes > size:
            raise ManifestError(
                f"{self.variant.source}: __constant__ {arg.name} holds {size} bytes, "
                f"the generated array {array.nbytes}"
            )
        self.gpu.cuda.memcpy_htod(symbol, array)

    def _prepare(self, launch: Launch) -> tuple[Any, ...]:
        func = self._module.get_function(launch.kernel)
        func.prepare(
            "".join(
                _TYPECHAR[a.dtype] if a.role == "scalar" else "P" for a in launch.args
            )
        )
        where = self.variant.where
        grid, block = launch.shape(self.sizes, where)
        values = [
            a.value_for(self.sizes, where)
            if a.role == "scalar"
            else self._buffers[a.name]
            for a in launch.args
        ]
        return func, grid, block, launch.dynamic_shared(self.sizes, where), values

    def initialize_buffers(self) -> None:
        """Fill outputs and scratch as the variant needs: sentinel or zero."""
        for name, (arg, shape) in self._fills.items():
            how = self.variant.init_of(arg)
            self.gpu.cuda.memcpy_htod(
                self._buffers[name], initial_fill(arg.dtype, how, shape)
            )

    def zero_outputs(self) -> None:
        """Set every output and scratch buffer to zero on the device (cuMemsetD8)."""
        for name, (arg, shape) in self._fills.items():
            nbytes = int(np.prod(shape)) * np.dtype(arg.dtype).itemsize
            if nbytes:
                self.gpu.cuda.memset_d8(self._buffers[name], 0, nbytes)

    def launch_count(self) -> int:
        """Kernels one :meth:`launch` starts: the declared ones with a non-empty grid.

        Fewer than declared where a launch has nothing to do at this size (HYB SpMV
        on a banded matrix: no COO part); ncu profiles only the launches made.
        """
        return len(self._calls)

    def launch(self, stream: Any = None) -> None:
        """The variant's launches in order, asynchronously, on one stream."""
        for func, grid, block, shared, args in self._calls:
            func.prepared_async_call(grid, block, stream, *args, shared_size=shared)

    def synchronize(self) -> None:
        """Wait for the device; a kernel fault raises here."""
        self.gpu.ctx.synchronize()

    def outputs(self) -> dict[str, np.ndarray]:
        """Copy every output back to the host."""
        result = {}
        for name, (arg, shape) in self._fills.items():
            if arg.role == "output":
                host = np.empty(shape, dtype=arg.dtype)
                self.gpu.cuda.memcpy_dtoh(host, self._buffers[name])
                result[name] = host
        return result

    def free(self) -> None:
        """Release device buffers."""
        for buf in self._buffers.values():
            buf.free()
        self._buffers.clear()


def use_inputs_cache(cache: ReferenceCache | None) -> None:
    """Launchers of ``cache``'s family set up from it from now on; None: generate.

    The cache's seed is the worker's: the same inputs every stage generates from
    (seed, n).
    """
    _INPUTS.clear()
    if cache is not None:
        _INPUTS.append(cache)


def load_helpers(gpu: GpuContext) -> Any:
    """Nsightflow's own helper kernels (``cuda/helpers.cu``), built for this GPU.

    Built once per source, nvcc and GPU architecture into the machine's temporary
    folder (0.49 s of nvcc per GPU job on the H200 machine), then loaded from there.
    """
    import hashlib
    import os
    import subprocess
    import tempfile

    from nsightflow.tools.provenance import nvcc_version

    source = Path(__file__).parent / "cuda" / "helpers.cu"
    major, minor = gpu.device.compute_capability()
    arch = f"sm_{major}{minor}"
    digest = hashlib.sha256(source.read_bytes() + str(nvcc_version()).encode())
    folder = Path(tempfile.gettempdir()) / "nsightflow-helpers"
    cubin = folder / f"helpers-{digest.hexdigest()[:16]}-{arch}.cubin"
    if not cubin.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        tmp = folder / f".{cubin.name}.{os.getpid()}"
        proc = subprocess.run(
            ["nvcc", f"-arch={arch}", "-cubin", "-O3", "-o", str(tmp), str(source)],
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0:
            raise GpuUnavailableError(f"nvcc could not build {source}: {proc.stderr}")
        os.replace(tmp, cubin)
    return gpu.cuda.module_from_file(str(cubin))
