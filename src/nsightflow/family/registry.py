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
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import yaml

from nsightflow.errors import ManifestError
from nsightflow.family.checks import check_family
from nsightflow.family.expr import names as expr_names
from nsightflow.family.model import (
    ARRAY_ROLES,
    Arg,
    Family,
    Launch,
    Sizes,
    Variant,
    as_sizes,
)
from nsightflow.family.params import (
    ParamAxis,
    check_size,
    check_source_guards,
    merge_axes,
    parse_axes,
    points,
)
from nsightflow.family.sources import local_includes

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
]

SCHEMA_PATH = Path(__file__).parent / "schemas" / "family.schema.yaml"


@cache
def _schema() -> dict[str, Any]:
    with SCHEMA_PATH.open() as fh:
        return yaml.safe_load(fh)  # type: ignore[no-any-return]


def _read_manifest(path: Path) -> dict[str, Any]:
    """The manifest's YAML, checked against the schema."""
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
    return data  # type: ignore[no-any-return]


def load_family(folder: Path) -> Family:
    """Read and validate one family folder.

    Raises:
        ManifestError: naming the file and field at fault, and how to fix it.
    """
    path = folder / "family.yaml"
    data = _read_manifest(path)
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
    args = _family_args(path, data["args"])
    generated = tuple(data.get("generated", []))
    known = {"n", *generated}
    for key in ("flops", "bytes"):
        _check_names(path, key, data[key], known)
    for i, arg in enumerate(args):
        for attr in ("shape", "value"):
            if getattr(arg, attr) is not None:
                _check_names(path, f"args.{i}.{attr}", getattr(arg, attr), known)
    tuning = _FamilyTuning(
        parse_axes(str(path), data.get("params", {})),
        tuple(data.get("constraints", [])),
    )
    variants = {
        name: _variant(folder, name, entry, (args, tuning), known)
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


def _check_names(
    path: Path,
    key: str,
    expression: str,
    known: set[str],
    params: frozenset[str] = frozenset(),
) -> None:
    """Reject an expression that uses a name that is not a size (or a parameter)."""
    unknown = expr_names(expression, f"{path}: field {key}") - known - params
    if unknown:
        also = f" and the params {sorted(params)}" if params else ""
        raise ManifestError(
            f"{path}: field {key}: {expression!r} uses {sorted(unknown)}; known are "
            f"the sizes {sorted(known)}{also} (declare sizes that generate() returns "
            "under 'generated', parameters under 'params')"
        )


def _order(variant: str) -> tuple[int, str]:
    """Sort ``v10_x`` after ``v9_y``: the story order is the number."""
    number = variant[1:].split("_", 1)[0]
    return int(number), variant


@dataclass(frozen=True)
class _FamilyTuning:
    """The family-level ``params`` and ``constraints``.

    A parameter reaches the variants that use it; a constraint applies where a
    variant has every parameter it names.
    """

    axes: tuple[ParamAxis, ...] = ()
    constraints: tuple[str, ...] = ()


def _variant(
    folder: Path,
    name: str,
    entry: dict[str, Any],
    shared: tuple[tuple[Arg, ...], _FamilyTuning],
    known: set[str],
) -> Variant:
    path = folder / "family.yaml"
    where = f"variants.{name}"
    args, tuning = shared
    source = folder / entry.get("source", f"{name}.cu")
    if not source.is_file():
        raise ManifestError(
            f"{path}: field {where}.source: {source} does "
            "not exist; add the file or set 'source'"
        )
    own = parse_axes(f"{path}: field {where}", entry.get("params", {}))
    inherited = tuple(a for a in tuning.axes if _uses(source, entry, a.name))
    axes = merge_axes(inherited, own)
    param_names = frozenset(a.name for a in axes)
    constraints = (
        *(c for c in tuning.constraints if expr_names(c, where) <= param_names),
        *entry.get("constraints", []),
    )
    _check_param_names(path, where, set(param_names), known, entry.get("defines", {}))
    if entry.get("accepts") is not None:
        _check_names(path, f"{where}.accepts", entry["accepts"], {"n"}, param_names)
    scratch = tuple(Arg(role="scratch", **s) for s in entry.get("scratch", []))
    for i, buf in enumerate(scratch):
        _check_names(path, f"{where}.scratch.{i}.shape", str(buf.shape), known)
    clash = {s.name for s in scratch} & {a.name for a in args}
    if clash:
        raise ManifestError(
            f"{path}: field {where}.scratch: {sorted(clash)} already name family args; "
            "rename the scratch buffer"
        )
    pool = {a.name: a for a in (*args, *scratch)}
    launches = tuple(
        _launch(path, f"{where}.launches.{i}", spec, (args, pool), known, param_names)
        for i, spec in enumerate(_launch_specs(path, where, entry))
    )
    _check_init(path, where, entry.get("init", {}), pool)
    variant = Variant(
        family=folder.name,
        name=name,
        source=source,
        idea=entry["idea"],
        launches=launches,
        improves_on=entry.get("improves_on"),
        accepts=entry.get("accepts"),
        defines=dict(entry.get("defines", {})),
        scratch=scratch,
        init=dict(entry.get("init", {})),
        generator_args=dict(entry.get("generator_args", {})),
        params=axes,
        constraints=tuple(constraints),
    )
    if axes:
        _check_space(variant)
    return variant.with_params(variant.defaults)


def _uses(source: Path, entry: Mapping[str, Any], name: str) -> bool:
    """Whether a variant uses a family-level parameter (its sources or its shape)."""
    texts = [p.read_text(errors="replace") for p in (source, *local_includes(source))]
    shape = [
        str(entry.get(k, "")) for k in ("block", "grid", "shared_bytes", "launches")
    ]
    return any(re.search(rf"\b{re.escape(name)}\b", t) for t in (*texts, *shape))


def _check_param_names(
    path: Path,
    where: str,
    params: set[str],
    sizes: set[str],
    defines: dict[str, Any],
) -> None:
    """Parameter names must not shadow a size or a manifest define."""
    for clash, what in ((params & sizes, "sizes"), (params & set(defines), "defines")):
        if clash:
            raise ManifestError(
                f"{path}: field {where}.params: {sorted(clash)} already name {what}; "
                "rename the parameter"
            )


def _check_space(variant: Variant) -> None:
    """Evaluate the constraints and blocks at every point of the declared space.

    Raises:
        ManifestError: a constraint or block that does not evaluate, a block that is
            not positive, defaults that break a constraint, or an unguarded define.
    """
    where = variant.where
    check_size(where, variant.params)
    for i, constraint in enumerate(variant.constraints):
        _check_names_in(f"{where}.constraints.{i}", constraint, set(variant.defaults))
    for values in points(variant.params):
        if variant.unmet_constraints(values):
            continue
        for i, launch in enumerate(variant.launches):
            block = launch.at(values, f"{where}.launches.{i}").block
            if min(block) < 1:
                raise ManifestError(
                    f"{where}.launches.{i}.block: {list(block)} at {values}; every "
                    "dimension must be at least 1 (add a constraint that excludes it)"
                )
    unmet = variant.unmet_constraints(variant.defaults)
    if unmet:
        raise ManifestError(
            f"{where}.params: the defaults {variant.defaults} break the constraint "
            f"{unmet[0]!r}; change a default or the constraint"
        )
    texts = {
        p: p.read_text(errors="replace")
        for p in (variant.source, *local_includes(variant.source))
    }
    exprs = [variant.accepts or ""]
    for launch in variant.launches:
        exprs += [*launch.block_expr, *launch.grid, launch.shared_bytes]
    used = set().union(*(expr_names(e, where) for e in exprs if e))
    check_source_guards(where, texts, list(variant.defaults), used)


def _check_names_in(where: str, expression: str, known: set[str]) -> None:
    unknown = expr_names(expression, where) - known
    if unknown:
        raise ManifestError(
            f"{where}: {expression!r} uses {sorted(unknown)}; the parameters are "
            f"{sorted(known)}"
        )


def _check_init(
    path: Path, where: str, init: Mapping[str, str], pool: Mapping[str, Arg]
) -> None:
    """A variant's ``init`` may only name outputs and scratch buffers."""
    buffers = sorted(a for a, v in pool.items() if v.role in ("output", "scratch"))
    for arg_name in init:
        if arg_name not in buffers:
            raise ManifestError(
                f"{path}: field {where}.init.{arg_name}: not an output or scratch "
                f"buffer; choose from {buffers}"
            )


_SINGLE = ("kernel", "block", "grid")


def _launch_specs(
    path: Path, where: str, entry: dict[str, Any]
) -> list[dict[str, Any]]:
    """The variant's launches: its ``launches`` list, or one from kernel/block/grid."""
    single = [k for k in (*_SINGLE, "shared_bytes", "args") if k in entry]
    if "launches" in entry:
        if single:
            raise ManifestError(
                f"{path}: field {where}: give either 'launches' or "
                f"kernel/block/grid, not both (found {single} beside 'launches')"
            )
        return list(entry["launches"])
    missing = [k for k in _SINGLE if k not in entry]
    if missing:
        raise ManifestError(
            f"{path}: field {where}: {missing} missing; a variant needs kernel, block "
            "and grid, or a 'launches' list"
        )
    return [{k: entry[k] for k in single}]


def _launch(
    path: Path,
    where: str,
    spec: dict[str, Any],
    scope: tuple[tuple[Arg, ...], Mapping[str, Arg]],
    known: set[str],
    params: frozenset[str],
) -> Launch:
    """One launch with its argument names resolved (and checked) to ``Arg``s."""
    args, pool = scope
    for i, g in enumerate(spec["grid"]):
        _check_names(path, f"{where}.grid.{i}", g, known, params)
    for i, b in enumerate(spec["block"]):
        if isinstance(b, str):
            _check_names(path, f"{where}.block.{i}", b, set(), params)
    shared = str(spec.get("shared_bytes", "0"))
    _check_names(path, f"{where}.shared_bytes", shared, known, params)
    if "args" not in spec:
        resolved = tuple(a for a in args if a.role != "constant")
    else:
        resolved = tuple(
            _launch_arg(path, f"{where}.args.{i}", item, pool, known)
            for i, item in enumerate(spec["args"])
        )
    exprs = tuple(str(b) for b in spec["block"])
    return Launch(
        kernel=spec["kernel"],
        block=tuple(b if isinstance(b, int) else 0 for b in spec["block"]),
        grid=tuple(spec["grid"]),
        args=resolved,
        shared_bytes=shared,
        block_expr=exprs,
    )


def _launch_arg(
    path: Path,
    where: str,
    item: str | dict[str, str],
    pool: Mapping[str, Arg],
    known: set[str],
) -> Arg:
    if isinstance(item, dict):
        _check_names(path, f"{where}.value", item["value"], known)
        return Arg(role="scalar", **item)
    arg = pool.get(item)
    if arg is None:
        raise ManifestError(
            f"{path}: field {where}: unknown argument {item!r}; choose from "
            f"{sorted(pool)} or give an inline scalar {{name, dtype, value}}"
        )
    if arg.role == "constant":
        raise ManifestError(
            f"{path}: field {where}: {item!r} is a __constant__ array, not a kernel "
            "argument; the launcher copies it to the module symbol of that name"
        )
    return arg


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
    if variant not in fam.variants:
        raise ManifestError(
            f"{fam.folder / 'family.yaml'}: no variant {variant!r}; "
            f"have {sorted(fam.variants)}"
        )
    found = fam.variants[variant]
    if cubin is not None:
        found = found.with_params(built_params(cubin))
    return fam, found


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
