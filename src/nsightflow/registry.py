"""Registry: kernel families from ``kernels/<family>/family.yaml``.

A family folder holds the manifest (validated against ``schemas/family.schema.yaml``),
one ``.cu`` file per variant and ``reference.py`` (``generate`` and ``reference``).
The registry's variant table defines the workflow's ``{family}`` / ``{variant}``
wildcards.
"""

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import jsonschema
import numpy as np
import yaml

from nsightflow.errors import ManifestError
from nsightflow.expr import evaluate

SCHEMA_PATH = Path(__file__).parent / "schemas" / "family.schema.yaml"


@dataclass(frozen=True)
class Arg:
    """One kernel argument: an input or output array, or a scalar."""

    name: str
    role: str  # input | output | scalar
    dtype: str
    shape: str | None = None
    value: str | None = None

    def shape_for(self, n: int, where: str) -> tuple[int, ...]:
        """Array shape at size ``n``."""
        parts = [p for p in str(self.shape).split(",") if p.strip()]
        return tuple(
            int(evaluate(p, {"n": n}, f"{where}.{self.name}.shape")) for p in parts
        )


@dataclass(frozen=True)
class Variant:
    """One kernel variant of a family, as declared in its manifest."""

    family: str
    name: str
    source: Path
    kernel: str
    block: tuple[int, ...]
    grid: tuple[str, ...]
    idea: str
    improves_on: str | None = None
    shared_bytes: str = "0"
    accepts: str | None = None
    defines: Mapping[str, int | str] = field(default_factory=dict)

    @property
    def where(self) -> str:
        """Manifest location for error messages."""
        return f"{self.source.parent / 'family.yaml'}: variants.{self.name}"

    def launch_shape(self, n: int) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """(grid, block) for size ``n``, each padded to three dimensions."""
        grid = [int(evaluate(g, {"n": n}, f"{self.where}.grid")) for g in self.grid]
        block = list(self.block)
        return _dim3(grid), _dim3(block)

    def dynamic_shared(self, n: int) -> int:
        """Dynamic shared memory per block in bytes at size ``n``."""
        return int(evaluate(self.shared_bytes, {"n": n}, f"{self.where}.shared_bytes"))

    def accepts_size(self, n: int) -> bool:
        """Whether the variant supports size ``n`` (manifest ``accepts``)."""
        if self.accepts is None:
            return True
        return bool(evaluate(self.accepts, {"n": n}, f"{self.where}.accepts"))


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

    def ideal_flops(self, n: int) -> float:
        """Ideal floating-point operations at size ``n``."""
        return float(
            evaluate(self.flops, {"n": n}, f"{self.folder}/family.yaml: flops")
        )

    def ideal_bytes(self, n: int) -> float:
        """Ideal DRAM bytes (each input read once, each output written once)."""
        return float(
            evaluate(self.bytes, {"n": n}, f"{self.folder}/family.yaml: bytes")
        )

    def reference_module(self) -> ModuleType:
        """The family's ``reference.py`` module."""
        return _load_module(self.folder / "reference.py")

    def generator(self) -> Callable[[int, np.random.Generator], dict[str, np.ndarray]]:
        """``generate(n, rng)`` from ``reference.py``."""
        return self.reference_module().generate  # type: ignore[no-any-return]


def _dim3(values: list[int]) -> tuple[int, int, int]:
    padded = [*values, 1, 1][:3]
    return padded[0], padded[1], padded[2]


@cache
def _schema() -> dict[str, Any]:
    with SCHEMA_PATH.open() as fh:
        return yaml.safe_load(fh)  # type: ignore[no-any-return]


def _load_module(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"nsf_ref_{path.parent.name}", path)
    if spec is None or spec.loader is None:
        raise ManifestError(f"{path}: cannot import the family's reference module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for name in ("generate", "reference"):
        if not callable(getattr(module, name, None)):
            raise ManifestError(
                f"{path}: define {name}(...); see kernels/jacobi2d/reference.py"
            )
    return module


def load_family(folder: Path) -> Family:
    """Read and validate one family folder.

    Raises:
        ManifestError: naming the file and field at fault, and how to fix it.
    """
    path = folder / "family.yaml"
    if not path.is_file():
        raise ManifestError(f"{path}: missing; every family folder needs a family.yaml")
    with path.open() as fh:
        try:
            data = yaml.safe_load(fh)
        except yaml.YAMLError as exc:
            raise ManifestError(f"{path}: not valid YAML: {exc}") from exc
    errors = sorted(
        jsonschema.Draft202012Validator(_schema()).iter_errors(data),
        key=lambda e: list(e.path),
    )
    if errors:
        err = errors[0]
        field_path = ".".join(str(p) for p in err.path) or "(top level)"
        raise ManifestError(f"{path}: field {field_path}: {err.message}")
    if data["name"] != folder.name:
        raise ManifestError(
            f"{path}: field name: {data['name']!r} must equal the folder name "
            f"{folder.name!r}"
        )
    args = tuple(Arg(**a) for a in data["args"])
    for i, arg in enumerate(args):
        needed = "value" if arg.role == "scalar" else "shape"
        if getattr(arg, needed) is None:
            raise ManifestError(f"{path}: field args.{i}: {arg.role} needs '{needed}'")
    variants = {
        name: _variant(folder, name, entry)
        for name, entry in sorted(
            data["variants"].items(), key=lambda kv: _order(kv[0])
        )
    }
    for name, var in variants.items():
        if var.improves_on is not None and var.improves_on not in variants:
            raise ManifestError(
                f"{path}: field variants.{name}.improves_on: unknown variant "
                f"{var.improves_on!r}; choose one of {sorted(variants)}"
            )
    if data["baseline"] not in variants:
        raise ManifestError(
            f"{path}: field baseline: {data['baseline']!r} is not a variant; "
            f"choose one of {sorted(variants)}"
        )
    if not (folder / "reference.py").is_file():
        raise ManifestError(
            f"{folder / 'reference.py'}: missing (generate + reference)"
        )
    return Family(
        name=data["name"],
        title=data.get("title", data["name"]),
        description=data.get("description", ""),
        folder=folder,
        sizes=tuple(data["sizes"]),
        profile_sizes=tuple(data["profile_sizes"]),
        verify_sizes=tuple(data["verify_sizes"]),
        flops=data["flops"],
        bytes=data["bytes"],
        tolerance=float(data["tolerance"]),
        baseline=data["baseline"],
        args=args,
        variants=variants,
    )


def _order(variant: str) -> tuple[int, str]:
    """Sort ``v10_x`` after ``v9_y``: the story order is the number."""
    number = variant[1:].split("_", 1)[0]
    return int(number), variant


def _variant(folder: Path, name: str, entry: dict[str, Any]) -> Variant:
    source = folder / entry.get("source", f"{name}.cu")
    if not source.is_file():
        raise ManifestError(
            f"{folder / 'family.yaml'}: field variants.{name}.source: {source} does "
            "not exist; add the file or set 'source'"
        )
    return Variant(
        family=folder.name,
        name=name,
        source=source,
        kernel=entry["kernel"],
        block=tuple(entry["block"]),
        grid=tuple(entry["grid"]),
        idea=entry["idea"],
        improves_on=entry.get("improves_on"),
        shared_bytes=str(entry.get("shared_bytes", "0")),
        accepts=entry.get("accepts"),
        defines=dict(entry.get("defines", {})),
    )


def load_families(kernels_dir: Path, names: list[str] | None = None) -> list[Family]:
    """All families under ``kernels_dir`` (or just ``names``), sorted by name.

    Raises:
        ManifestError: a named family does not exist, or a manifest is invalid.
    """
    if not kernels_dir.is_dir():
        raise ManifestError(f"kernels_dir {kernels_dir}: no such folder (config.yaml)")
    available = sorted(
        p.name for p in kernels_dir.iterdir() if (p / "family.yaml").is_file()
    )
    chosen = names or available
    missing = [n for n in chosen if n not in available]
    if missing:
        raise ManifestError(
            f"config.yaml: field families: {missing} not found under {kernels_dir}; "
            f"available: {available}"
        )
    return [load_family(kernels_dir / n) for n in chosen]


def find_variant(
    kernels_dir: Path, family: str, variant: str
) -> tuple[Family, Variant]:
    """Look up one variant; raises ManifestError naming what exists."""
    fam = load_family(kernels_dir / family)
    if variant not in fam.variants:
        raise ManifestError(
            f"{fam.folder / 'family.yaml'}: no variant {variant!r}; "
            f"have {sorted(fam.variants)}"
        )
    return fam, fam.variants[variant]
