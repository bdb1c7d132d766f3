"""The manifest's data model: arguments, launches, variants and families.

Built and validated by :mod:`nsightflow.family.registry`; every expression in it is evaluated
over *sizes*: ``n`` plus the integer sizes the family's ``generate`` returns, and, for a
variant with tunable ``params`` (:mod:`nsightflow.family.params`), the values of its
parameters in force (block, grid, shared_bytes, accepts). Each result is checked for
what its field means (:func:`count`, :func:`whole`): work and bytes are finite and
non-negative, grid dimensions, shapes and shared-memory sizes are integers within the
device's limits, a scalar fits its dtype. The registry runs every check at every
declared size when it loads a manifest (:mod:`nsightflow.family.checks`).
"""

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from nsightflow.errors import ManifestError
from nsightflow.family.expr import evaluate, split_dims
from nsightflow.family.params import ParamAxis, config_id

ARRAY_ROLES = ("input", "output", "scratch", "constant")
Sizes = Mapping[str, int]
# Launch limits of compute capability 9.0 (CUDA C++ Programming Guide, "Features and
# Technical Specifications"), the most any GPU nsightflow targets accepts.
MAX_GRID = (2**31 - 1, 65535, 65535)
MAX_BLOCK = (1024, 1024, 64)
MAX_THREADS_PER_BLOCK = 1024
MAX_SHARED_BYTES = 232448  # 227 KiB of dynamic shared memory per block (opt-in)
MAX_ELEMENTS = 2**40  # one array: 4 TiB of float32, beyond any GPU's memory
MAX_DIMS = 8
# frameworks in which a Python launcher's author writes the kernels themselves
KERNEL_FRAMEWORKS = frozenset({"triton", "numba"})


def _at(sizes: Sizes) -> str:
    return ", ".join(f"{k} = {v}" for k, v in sizes.items())


def count(expression: str, sizes: Sizes, where: str) -> float:
    """An amount of work or bytes: a finite, non-negative number.

    Raises:
        ManifestError: naming the field, the size and the value.
    """
    value = float(evaluate(expression, sizes, where))
    if value < 0:
        raise ManifestError(
            f"{where}: {expression!r} = {value:,.0f} at {_at(sizes)}: a count of work "
            "or bytes cannot be negative; fix the formula"
        )
    return value


def whole(expression: str, sizes: Sizes, where: str, most: int, least: int = 0) -> int:
    """A dimension or size: an integer in ``[least, most]``.

    Raises:
        ManifestError: the value is not an integer or is out of range, naming the
            field, the size and the value.
    """
    value = evaluate(expression, sizes, where)
    if isinstance(value, float) and not value.is_integer():
        raise ManifestError(
            f"{where}: {expression!r} = {value} at {_at(sizes)} is not an integer; "
            "use // or cdiv(a, b) for whole numbers"
        )
    if not least <= value <= most:
        raise ManifestError(
            f"{where}: {expression!r} = {value:,} at {_at(sizes)} is outside "
            f"{least:,}..{most:,}; fix the expression or the sizes"
        )
    return int(value)


def as_sizes(n: int | Sizes) -> dict[str, int]:
    """``{"n": n}`` for a bare size; a sizes mapping as it is."""
    return {"n": n} if isinstance(n, int | np.integer) else dict(n)


@dataclass(frozen=True)
class Arg:
    """One argument: an input, output or scratch array, a scalar, or a constant."""

    name: str
    role: str  # input | output | scalar | scratch | constant
    dtype: str
    shape: str | None = None
    value: str | None = None
    init: str = "sentinel"  # outputs and scratch: sentinel | zero

    def shape_for(self, n: int | Sizes, where: str) -> tuple[int, ...]:
        """Array shape at size ``n`` (or at a sizes mapping)."""
        parts = split_dims(str(self.shape))
        sizes = as_sizes(n)
        key = f"{where}.{self.name}.shape"
        if not 1 <= len(parts) <= MAX_DIMS:
            raise ManifestError(
                f"{key}: {self.shape!r} has {len(parts)} dimensions; give 1 to "
                f"{MAX_DIMS} expressions separated by commas"
            )
        shape = tuple(whole(p, sizes, key, MAX_ELEMENTS) for p in parts)
        if math.prod(shape) > MAX_ELEMENTS:
            raise ManifestError(
                f"{key}: {self.shape!r} = {shape} at {_at(sizes)} has more than "
                f"2**40 elements; fix the shape or the sizes"
            )
        return shape

    def value_for(self, n: int | Sizes, where: str) -> Any:
        """A scalar's value at size ``n``, in its dtype (checked to fit it)."""
        sizes = as_sizes(n)
        key = f"{where}.{self.name}.value"
        raw = evaluate(str(self.value), sizes, key)
        dtype = np.dtype(self.dtype)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            raw = whole(str(self.value), sizes, key, int(info.max), int(info.min))
        return dtype.type(raw)


@dataclass(frozen=True)
class Launch:
    """One kernel launch of a variant: kernel, shape and arguments.

    ``block`` holds the block resolved at the parameter values in force
    (``bindings``); ``block_expr`` the manifest's entries (numbers, or expressions of
    the parameters), from which :meth:`at` resolves it for other values.
    """

    kernel: str
    block: tuple[int, ...]
    grid: tuple[str, ...]
    args: tuple[Arg, ...]
    shared_bytes: str = "0"
    block_expr: tuple[str, ...] = ()
    bindings: Mapping[str, int] = field(default_factory=dict)

    def names(self, n: int | Sizes) -> dict[str, int]:
        """The names an expression of this launch sees: parameters, then sizes."""
        return {**self.bindings, **as_sizes(n)}

    def shape(
        self, n: int | Sizes, where: str
    ) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """(grid, block) at size ``n``, each padded to three dimensions."""
        names = self.names(n)
        grid = [
            whole(g, names, f"{where}.grid.{i}", MAX_GRID[i])
            for i, g in enumerate(self.grid)
        ]
        return _dim3(grid), _dim3(list(self.block))

    def dynamic_shared(self, n: int | Sizes, where: str) -> int:
        """Dynamic shared memory per block in bytes at size ``n``."""
        key = f"{where}.shared_bytes"
        return whole(self.shared_bytes, self.names(n), key, MAX_SHARED_BYTES)

    def at(self, values: Mapping[str, int], where: str) -> "Launch":
        """This launch with the parameters set to ``values`` (block resolved)."""
        exprs = self.block_expr or tuple(str(b) for b in self.block)
        block = tuple(
            int(evaluate(b, values, f"{where}.block.{i}")) for i, b in enumerate(exprs)
        )
        return replace(self, block=block, block_expr=exprs, bindings=dict(values))


@dataclass(frozen=True)
class Variant:
    """One kernel variant of a family, as declared in its manifest."""

    family: str
    name: str
    source: Path
    idea: str
    launches: tuple[Launch, ...]
    improves_on: str | None = None
    accepts: str | None = None
    defines: Mapping[str, int | str] = field(default_factory=dict)
    scratch: tuple[Arg, ...] = ()
    init: Mapping[str, str] = field(default_factory=dict)
    generator_args: Mapping[str, Any] = field(default_factory=dict)
    params: tuple[ParamAxis, ...] = ()
    constraints: tuple[str, ...] = ()
    config: Mapping[str, int] = field(default_factory=dict)
    # "cuda": a .cu file whose kernels nsightflow launches itself; "python": a launcher
    # file that launches its own kernels through a framework (family/pylauncher.py),
    # with no launches declared here and ``requires`` naming the frameworks it imports.
    kind: str = "cuda"
    requires: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """Manifest location for error messages."""
        return f"{self.source.parent / 'family.yaml'}: variants.{self.name}"

    @property
    def kernel(self) -> str:
        """The main kernel: the first launch's (its resources represent the variant).

        A Python launcher's kernels are named by the framework when they run: its
        launcher file stands for them.
        """
        return self.launches[0].kernel if self.launches else self.source.name

    @property
    def block(self) -> tuple[int, ...]:
        """The first launch's block (none for a Python launcher)."""
        return self.launches[0].block if self.launches else ()

    @property
    def grid(self) -> tuple[str, ...]:
        """The first launch's grid expressions (none for a Python launcher)."""
        return self.launches[0].grid if self.launches else ()

    @property
    def kernels(self) -> tuple[str, ...]:
        """Every kernel the variant launches, each once, in launch order."""
        return tuple(dict.fromkeys(launch.kernel for launch in self.launches))

    @property
    def is_library(self) -> bool:
        """Whether the variant calls a library (cuBLAS through torch, CuPy) for its work.

        A Python launcher whose ``requires`` names no framework that compiles the
        author's own kernels (:data:`KERNEL_FRAMEWORKS`: Triton, Numba) runs code the
        author does not own: a reference line to reach, not a kernel to tune.
        """
        return self.is_python and not set(self.requires) & KERNEL_FRAMEWORKS

    @property
    def is_python(self) -> bool:
        """Whether the variant is a Python launcher (it launches its own kernels)."""
        return self.kind == "python"

    def launch_shape(
        self, n: int | Sizes
    ) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """(grid, block) of the first launch at size ``n``."""
        return self.launches[0].shape(n, self.where)

    def dynamic_shared(self, n: int | Sizes) -> int:
        """Dynamic shared memory per block of the first launch at size ``n``."""
        if not self.launches:
            return 0
        return self.launches[0].dynamic_shared(n, self.where)

    def accepts_size(self, n: int) -> bool:
        """Whether the variant supports size ``n`` (manifest ``accepts``)."""
        if self.accepts is None:
            return True
        names = {**self.config, "n": n}
        value = evaluate(self.accepts, names, f"{self.where}.accepts")
        if not isinstance(value, bool | int):
            raise ManifestError(
                f"{self.where}.accepts: {self.accepts!r} = {value} at n = {n} is not "
                "a condition; write a comparison such as n % 4 == 0"
            )
        return bool(value)

    @property
    def compile_defines(self) -> dict[str, int | str]:
        """The ``-D`` defines for nvcc: the manifest's, then the parameters in force."""
        return {**self.defines, **self.config}

    @property
    def config_id(self) -> str:
        """The parameter values in force as a file-name-safe id (``""`` without)."""
        return config_id(self.config)

    @property
    def defaults(self) -> dict[str, int]:
        """Every parameter at the value the manifest gives as its default."""
        return {axis.name: axis.default for axis in self.params}

    def unmet_constraints(self, values: Mapping[str, int]) -> list[str]:
        """The manifest's constraints that ``values`` do not satisfy."""
        return [
            c
            for i, c in enumerate(self.constraints)
            if not evaluate(c, values, f"{self.where}.constraints.{i}")
        ]

    def with_params(self, values: Mapping[str, int]) -> "Variant":
        """This variant at other parameter values (missing ones at their defaults).

        Raises:
            ManifestError: a name is not a parameter of the variant, or a value is
                not one its axis declares.
        """
        axes = {axis.name: axis for axis in self.params}
        for name, value in values.items():
            if name not in axes:
                raise ManifestError(
                    f"{self.where}.params: no parameter {name!r}; the variant has "
                    f"{sorted(axes)}"
                )
            if value not in axes[name].values:
                raise ManifestError(
                    f"{self.where}.params.{name}: {value} is not one of the declared "
                    f"values {list(axes[name].values)}; add it to the axis"
                )
        config = {**self.defaults, **{k: int(v) for k, v in values.items()}}
        launches = tuple(
            launch.at(config, f"{self.where}.launches.{i}")
            for i, launch in enumerate(self.launches)
        )
        return replace(self, config=config, launches=launches)

    def init_of(self, arg: Arg) -> str:
        """How this variant needs ``arg`` initialised before it runs."""
        return self.init.get(arg.name, arg.init)


@dataclass(frozen=True)
class Family:
    """A kernel family: sizes, ideal work, reference and variants."""

    name: str
    title: str
    description: str
    folder: Path
    sizes: tuple[int, ...]
    profile_sizes: tuple[int, ...]
    verify_sizes: tuple[int, ...]
    flops: str
    bytes: str
    tolerance: float
    baseline: str
    args: tuple[Arg, ...]
    variants: Mapping[str, Variant]
    generated: tuple[str, ...] = ()
    vendor: str | None = None  # vendor library the compute ceiling is (ceilings.json)
    sweep_sizes: tuple[int, ...] = ()

    def ideal_flops(self, n: int | Sizes) -> float:
        """Ideal floating-point operations at size ``n`` (or a sizes mapping)."""
        return count(self.flops, as_sizes(n), f"{self.folder}/family.yaml: field flops")

    def ideal_bytes(self, n: int | Sizes) -> float:
        """Ideal DRAM bytes (each input read once, each output written once)."""
        return count(self.bytes, as_sizes(n), f"{self.folder}/family.yaml: field bytes")

    def reference_module(self) -> ModuleType:
        """The family's ``reference.py`` module."""
        return _load_module(self.folder / "reference.py")

    def generator(self) -> Callable[..., dict[str, Any]]:
        """``generate(n, rng, **generator_args)`` from ``reference.py``."""
        return self.reference_module().generate  # type: ignore[no-any-return]


def _dim3(values: list[int]) -> tuple[int, int, int]:
    padded = [*values, 1, 1][:3]
    return padded[0], padded[1], padded[2]


def _load_module(path: Path) -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"nsf_ref_{path.parent.name}", path)
    if spec is None or spec.loader is None:
        raise ManifestError(f"{path}: cannot import the family's reference module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # the family's code, not nsightflow's: one line
        line = getattr(exc, "lineno", None)
        at = f":{line}" if isinstance(exc, SyntaxError) and line else ""
        raise ManifestError(
            f"{path}{at}: cannot import the family's reference module: "
            f"{type(exc).__name__}: {' '.join(str(exc).split())[:300]}; fix it"
        ) from None
    for name in ("generate", "reference"):
        if not callable(getattr(module, name, None)):
            raise ManifestError(
                f"{path}: define {name}(...); see kernels/jacobi2d/reference.py"
            )
    return module
