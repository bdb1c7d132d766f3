"""What a variant's launches need from the generator, checked before any GPU work.

``generate(n, rng, **generator_args)`` returns arrays (or zero-argument callables that
build one, so a variant pays only for the inputs it uses) and the integer sizes the
manifest declares under ``generated``. These pure functions turn that into the sizes
every expression is evaluated over and the buffers the launcher allocates, and give
the analysis the recorded sizes for the ideal FLOPs and bytes; they run on any machine.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from nsightflow.errors import ManifestError
from nsightflow.family.model import Arg, Family, Variant

if TYPE_CHECKING:  # pandas costs a GPU worker ~1 s of start-up; only analysis needs it
    import pandas as pd


class GeneratedInputs(Mapping[str, Any]):
    """The generator's result; callables are built on first access, then kept."""

    def __init__(self, raw: Mapping[str, Any], where: str) -> None:
        self._raw = dict(raw)
        self._where = where

    def __getitem__(self, key: str) -> Any:
        if key not in self._raw:
            raise KeyError(
                f"{self._where}: generate() returned no {key!r}; return it (an array "
                "or a function that builds it)"
            )
        value = self._raw[key]
        if callable(value):
            value = self._raw[key] = value()
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)

    def raw(self) -> dict[str, Any]:
        """What the generator returned, callables not built."""
        return dict(self._raw)

    def is_size(self, key: str) -> bool:
        """Whether ``key`` holds an integer size rather than an array."""
        value = self._raw.get(key)
        return isinstance(value, int | np.integer) and not isinstance(value, bool)


def sizes_of(family: Family, n: int, generated: GeneratedInputs) -> dict[str, int]:
    """``n`` and the generated sizes the manifest declares, as plain ints.

    Raises:
        ManifestError: generate() did not return a declared size as an integer.
    """
    sizes = {"n": int(n)}
    for name in family.generated:
        if not generated.is_size(name):
            raise ManifestError(
                f"{family.folder / 'reference.py'}: generate() must return the integer "
                f"size {name!r} (declared under 'generated' in family.yaml)"
            )
        sizes[name] = int(generated[name])
    return sizes


@dataclass(frozen=True)
class BufferPlan:
    """The arrays one variant needs on the device, by what happens to them."""

    uploads: tuple[Arg, ...]  # inputs its launches read
    allocations: tuple[Arg, ...]  # every output (all are verified) + scratch it uses
    constants: tuple[Arg, ...]  # copied to the module's __constant__ symbols


def plan_buffers(family: Family, variant: Variant) -> BufferPlan:
    """Which family args and scratch buffers the variant's launches use.

    A Python launcher gets every array (its kernels are not declared): its
    ``__constant__``-role arrays become ordinary inputs.
    """
    every = (*family.args, *variant.scratch)
    if variant.is_python:
        return BufferPlan(
            uploads=tuple(a for a in every if a.role in ("input", "constant")),
            allocations=tuple(a for a in every if a.role in ("output", "scratch")),
            constants=(),
        )
    used = {arg.name for launch in variant.launches for arg in launch.args}
    return BufferPlan(
        uploads=tuple(a for a in every if a.role == "input" and a.name in used),
        allocations=tuple(
            a
            for a in every
            if a.role == "output" or (a.role == "scratch" and a.name in used)
        ),
        constants=tuple(a for a in family.args if a.role == "constant"),
    )


def host_array(
    family: Family, arg: Arg, generated: GeneratedInputs, sizes: Mapping[str, int]
) -> np.ndarray:
    """The generated array for ``arg`` in its dtype, checked against its shape.

    Raises:
        ManifestError: the array's size differs from the manifest's shape.
    """
    where = f"{family.folder / 'family.yaml'}: field args"
    array = np.ascontiguousarray(generated[arg.name], dtype=arg.dtype)
    expected = arg.shape_for(sizes, where)
    if array.size != int(np.prod(expected)):
        raise ManifestError(
            f"{family.folder / 'reference.py'}: generate() returned {arg.name!r} with "
            f"shape {array.shape}, but family.yaml declares shape {arg.shape!r} = "
            f"{expected} at sizes {dict(sizes)}"
        )
    return array.reshape(expected)


def initial_fill(dtype: str, how: str, shape: tuple[int, ...]) -> np.ndarray:
    """A buffer's content before launch: the sentinel (NaN / largest value) or zeros.

    The sentinel is a value no correct kernel writes, so unwritten outputs show.
    """
    dt = np.dtype(dtype)
    if how == "zero":
        return np.zeros(shape, dtype=dt)
    fill: float | int = np.nan if dt.kind == "f" else np.iinfo(dt).max
    return np.full(shape, fill, dtype=dt)


def call_generator(
    generate: Callable[..., Mapping[str, Any]],
    family: Family,
    variant: Variant,
    n: int,
    rng: np.random.Generator,
) -> GeneratedInputs:
    """``generate(n, rng, **generator_args)``, wrapped for lazy access."""
    where = family.folder / "reference.py"
    raw = user_call(where, "generate", n, generate, n, rng, **variant.generator_args)
    if not isinstance(raw, Mapping):
        raise ManifestError(
            f"{where}: generate() returned a {type(raw).__name__} at n = {n}; return "
            "a dict of the inputs by name"
        )
    return GeneratedInputs(raw, str(where))


def user_call(
    where: Any, name: str, n: int, fn: Callable[..., Any], *args: Any, **kwargs: Any
) -> Any:
    """``fn(*args)``, a function of the family's ``reference.py``.

    What it raises is the family's error, not nsightflow's: one line naming the
    file, the function, the size and the exception (no traceback).

    Raises:
        ManifestError: ``fn`` raised.
    """
    try:
        return fn(*args, **kwargs)
    except ManifestError:
        raise
    except Exception as exc:
        line = _user_line(exc, str(where))
        raise ManifestError(
            f"{where}{line}: {name}() raised {type(exc).__name__} at n = {n}: "
            f"{' '.join(str(exc).split())[:300]}; fix {name}()"
        ) from None


def _user_line(exc: BaseException, where: str) -> str:
    """``:<line>`` of the innermost frame in ``where`` that the exception passed."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == where]
    return f":{frames[-1].lineno}" if frames else ""


def check_reference(
    family: Family, n: int, sizes: Mapping[str, int], expected: Any
) -> dict[str, np.ndarray]:
    """The reference's outputs, checked against the manifest before they are kept.

    ``reference(inputs, n)`` returns one array per ``output`` arg, by name, of the
    arg's shape at these sizes, of numbers (float64 for a float output: the
    reference is computed in double precision; integers or booleans for an integer
    output). A wrong name, shape or dtype would be cached and make every variant
    "wrong".

    Raises:
        ManifestError: one line naming the file, the output and what is wrong.
    """
    where = f"{family.folder / 'reference.py'}: reference() at n = {n}"
    if not isinstance(expected, Mapping):
        raise ManifestError(
            f"{where} returned a {type(expected).__name__}; return a dict of the "
            "outputs by name"
        )
    outputs = {a.name: a for a in family.args if a.role == "output"}
    if set(expected) != set(outputs):
        raise ManifestError(
            f"{where} returned {sorted(map(str, expected))}, but family.yaml declares "
            f"the outputs {sorted(outputs)}; return exactly those"
        )
    checked = {}
    for name, arg in outputs.items():
        value = np.asarray(expected[name])
        shape = arg.shape_for(sizes, f"{family.folder}/family.yaml: args")
        declared = np.dtype(arg.dtype)
        kinds = "f" if declared.kind == "f" else "iub"
        if value.dtype.kind not in kinds or value.shape != shape:
            raise ManifestError(
                f"{where}: output {name!r} is {value.dtype} of shape "
                f"{value.shape}, but family.yaml declares {arg.dtype} of shape "
                f"{shape}; return {'floats' if kinds == 'f' else 'integers'} "
                f"of shape {shape}"
            )
        checked[name] = value
    return checked


def recorded_sizes(
    per_variant: Mapping[str, Mapping[str, Any]],
) -> dict[tuple[str, int], dict[str, int]]:
    """The generator's sizes (e.g. nnz) per (variant, n), as verify and time recorded.

    Empty for families without generated sizes.
    """
    found: dict[tuple[str, int], dict[str, int]] = {}
    for variant, record in per_variant.items():
        rows = [
            *record.get("verify", {}).get("sizes", []),
            *record.get("timing", {}).get("rows", []),
        ]
        for row in rows:
            if row.get("generated"):
                n = int(row.get("n", row.get("size", 0)))
                found[(variant, n)] = dict(row["generated"])
    return found


def ideal_counts(
    frame: pd.DataFrame,
    count: Callable[[dict[str, int]], float],
    generated: Mapping[tuple[str, int], dict[str, int]] | None,
) -> pd.Series:
    """Ideal FLOPs or bytes per row; NaN where a needed generated size is unknown.

    ``generated`` is None for families whose counts need only n.
    """
    import pandas as pd

    if generated is None:
        return frame["size"].map(lambda n: count({"n": n}))

    def one(variant: str, n: int) -> float:
        extra = generated.get((variant, int(n)))
        return np.nan if extra is None else count({"n": int(n), **extra})

    return pd.Series(
        [one(v, n) for v, n in zip(frame["variant"], frame["size"], strict=True)],
        index=frame.index,
        dtype=float,
    )
