"""Registry: kernel families from ``kernels/<family>/family.yaml``.

A family folder holds the manifest (validated against ``schemas/family.schema.yaml``),
one ``.cu`` file per variant and ``reference.py`` (``generate`` and ``reference``).
The registry's variant table defines the workflow's ``{family}`` / ``{variant}``
wildcards.

Expressions in a manifest (shapes, grids, scalar values, flops, bytes) are evaluated
over *sizes*: ``n`` and the integer sizes ``generate(n, rng)`` returns (the manifest's
``generated`` list, e.g. ``nnz`` of a sparse matrix). A variant is one kernel or an
ordered list of ``launches``; the loader checks every name an expression or a launch
uses, then evaluates every expression at every declared size
(:func:`nsightflow.family.checks.check_family`), so a bad manifest fails at load time
naming the file and field.

Tunable ``params`` and their ``constraints`` (:mod:`nsightflow.family.params`) are
checked at every point of the declared space when the manifest loads: each constraint
must evaluate, each block must resolve to positive numbers where the constraints hold,
and the defaults must satisfy the constraints. A variant loads at its defaults.
"""

import json
import math
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from nsightflow.errors import ManifestError
from nsightflow.family import tuned
from nsightflow.family.checks import check_family, check_manifest
from nsightflow.family.model import (
    ARRAY_ROLES,
    Arg,
    Family,
    Launch,
    Sizes,
    Variant,
    as_sizes,
)
from nsightflow.family.params import ParamAxis, parse_axes
from nsightflow.family.variants import FamilyTuning, build_variant, check_names
from nsightflow.io import read_yaml

__all__ = [
    "ARRAY_ROLES",
    "Arg",
    "Family",
    "Launch",
    "ParamAxis",
    "Sizes",
    "Variant",
    "as_sizes",
    "find_variant",
    "load_families",
    "load_family",
    "manifest_entries",
    "manifest_with_sizes",
    "variant_of",
]

SCHEMA_PATH = Path(__file__).parent / "schemas" / "family.schema.yaml"


@cache
def _schema() -> dict[str, Any]:
    with SCHEMA_PATH.open() as fh:  # our own file: libyaml's parser, 10 -> 1 ms
        loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
        return yaml.load(fh, Loader=loader)  # type: ignore[no-any-return]


def _read_manifest(path: Path) -> dict[str, Any]:
    """The manifest's YAML, checked against the schema."""
    if not path.is_file():
        raise ManifestError(f"{path}: missing; every family folder needs a family.yaml")
    data = read_yaml(path)  # bounded: no alias, no key twice
    errors = sorted(
        jsonschema.Draft202012Validator(_schema()).iter_errors(data),
        key=lambda e: list(e.path),
    )
    if errors:
        err = errors[0]
        field_path = ".".join(str(p) for p in err.path) or "(top level)"
        raise ManifestError(f"{path}: field {field_path}: {err.message}")
    return data  # type: ignore[no-any-return]


def load_family(folder: Path) -> Family:
    """Read and validate one family folder.

    Raises:
        ManifestError: naming the file and field at fault, and how to fix it.
    """
    path = folder / "family.yaml"
    data = _read_manifest(path)
    check_manifest(path, data)  # names, links and bidi controls, as read
    _check_header(path, folder, data)
    args = _family_args(path, data["args"])
    generated = tuple(data.get("generated", []))
    known = {"n", *generated}
    for key in ("flops", "bytes"):
        check_names(path, key, data[key], known)
    for i, arg in enumerate(args):
        for attr in ("shape", "value"):
            if getattr(arg, attr) is not None:
                check_names(path, f"args.{i}.{attr}", getattr(arg, attr), known)
    tuning = FamilyTuning(
        parse_axes(str(path), data.get("params", {})),
        tuple(data.get("constraints", [])),
    )
    variants = {
        name: build_variant(folder, name, entry, (args, tuning), known)
        for name, entry in sorted(
            data["variants"].items(), key=lambda kv: _order(kv[0])
        )
    }
    _check_references(path, data["baseline"], variants)
    tuned.load(folder, variants)  # a bad tuned.yaml fails here, in one line
    if not (folder / "reference.py").is_file():
        raise ManifestError(
            f"{folder / 'reference.py'}: missing (generate + reference)"
        )
    family = Family(
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
        generated=generated,
        vendor=data.get("vendor"),
        sweep_sizes=tuple(
            data.get("sweep_sizes", [max(data["profile_sizes"] or data["sizes"])])
        ),
    )
    check_family(family)
    return family


def _check_header(path: Path, folder: Path, data: Mapping[str, Any]) -> None:
    """What the schema cannot say: the name is the folder's, the tolerance finite."""
    if data["name"] != folder.name:
        raise ManifestError(
            f"{path}: field name: {data['name']!r} must equal the folder name "
            f"{folder.name!r}"
        )
    if not math.isfinite(data["tolerance"]):  # YAML's .nan and .inf pass the schema
        raise ManifestError(
            f"{path}: field tolerance: {data['tolerance']} is not a finite number; "
            "give the largest accepted relative error, e.g. 1.0e-6"
        )


def _check_references(
    path: Path, baseline: str, variants: Mapping[str, Variant]
) -> None:
    """``improves_on`` and ``baseline`` must name variants of the family."""
    for name, var in variants.items():
        if var.improves_on is not None and var.improves_on not in variants:
            raise ManifestError(
                f"{path}: field variants.{name}.improves_on: unknown variant "
                f"{var.improves_on!r}; choose one of {sorted(variants)}"
            )
    if baseline not in variants:
        raise ManifestError(
            f"{path}: field baseline: {baseline!r} is not a variant; "
            f"choose one of {sorted(variants)}"
        )
    for name in variants:
        _check_ladder(path, name, variants)


def _check_ladder(path: Path, start: str, variants: Mapping[str, Variant]) -> None:
    """Following ``improves_on`` from ``start`` ends at a variant with none.

    The report walks each step back to the baseline; a variant that improves on
    itself, or a loop of them, has no first step.
    """
    seen = [start]
    current = variants[start].improves_on
    while current is not None:
        if current in seen:
            loop = " -> ".join([*seen[seen.index(current) :], current])
            what = "itself" if current == start == seen[-1] else f"a loop ({loop})"
            raise ManifestError(
                f"{path}: field variants.{seen[-1]}.improves_on: {current!r} makes "
                f"{what}; each step improves on an earlier variant, the baseline "
                "on none"
            )
        seen.append(current)
        current = variants[current].improves_on


def _family_args(path: Path, entries: list[dict[str, Any]]) -> tuple[Arg, ...]:
    args = tuple(Arg(**a) for a in entries)
    seen: set[str] = set()
    for i, arg in enumerate(args):
        needed = "value" if arg.role == "scalar" else "shape"
        if getattr(arg, needed) is None:
            raise ManifestError(f"{path}: field args.{i}: {arg.role} needs '{needed}'")
        if arg.name in seen:
            raise ManifestError(
                f"{path}: field args.{i}.name: {arg.name!r} is declared twice"
            )
        seen.add(arg.name)
    return args


def _order(variant: str) -> tuple[int, str]:
    """Sort ``v10_x`` after ``v9_y``: the story order is the number."""
    number = variant[1:].split("_", 1)[0]
    return int(number), variant


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
    kernels_dir: Path, family: str, variant: str, cubin: Path | None = None
) -> tuple[Family, Variant]:
    """Look up one variant; raises ManifestError naming what exists.

    Args:
        kernels_dir: The folder of the families.
        family: Family name.
        variant: Variant name.
        cubin: The cubin the GPU stages will run. The compile stage records the
            parameters it was built with (a sweep's best, or the defaults) in the
            resources JSON beside it; the variant is returned at those values, so
            its block and grid match the code.
    """
    fam = load_family(kernels_dir / family)
    return fam, variant_of(fam, variant, cubin)


def variant_of(family: Family, variant: str, cubin: Path | None = None) -> Variant:
    """One variant of a family already loaded (see :func:`find_variant`)."""
    if variant not in family.variants:
        raise ManifestError(
            f"{family.folder / 'family.yaml'}: no variant {variant!r}; "
            f"have {sorted(family.variants)}"
        )
    found = family.variants[variant]
    return found.with_params(built_params(cubin)) if cubin is not None else found


def manifest_entries(text: str) -> dict[str, Any]:
    """The ``variants`` of a family.yaml's text as written, unchecked.

    For the code a timing was measured with: the time stage keeps a variant's entry
    as text, and compare reads it back at another revision (``git show``), where
    the manifest may predate this schema.
    """
    entries: dict[str, Any] = (yaml.safe_load(text) or {}).get("variants", {})
    return entries


def manifest_with_sizes(folder: Path, sizes: list[int]) -> str:
    """The family's manifest as YAML timing ``sizes`` (sorted, once each).

    ``profile_sizes`` keeps those among ``sizes`` (else the largest); ``sweep_sizes``
    is dropped; ``verify_sizes`` stays. The manifest is checked as it is loaded.
    """
    manifest = _read_manifest(folder / "family.yaml")
    chosen = sorted(set(sizes))
    manifest["sizes"] = chosen
    kept = [n for n in manifest.get("profile_sizes", []) if n in chosen]
    manifest["profile_sizes"] = kept or [chosen[-1]]
    manifest.pop("sweep_sizes", None)
    return str(yaml.safe_dump(manifest, sort_keys=False))


def built_params(cubin: Path) -> dict[str, int]:
    """The parameters a cubin was compiled with (``<stem>.resources.json``), or none."""
    resources = cubin.with_suffix(".resources.json")
    if not resources.is_file():
        return {}
    try:
        data = json.loads(resources.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return {str(k): int(v) for k, v in data.get("params", {}).items()}
