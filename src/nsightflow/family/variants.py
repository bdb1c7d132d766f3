"""Variants of a family manifest: each entry of ``variants`` built into a checked ``Variant``.

:func:`nsightflow.family.registry.load_family` reads and validates the manifest and calls
:func:`build_variant` for every entry: the variant's parameters (its own and the family's it
uses), launches with their arguments resolved, scratch buffers and ``init``, every name an
expression uses checked, and the declared parameter space evaluated point by point.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.errors import ManifestError
from nsightflow.family.expr import names as expr_names
from nsightflow.family.model import Arg, Launch, Variant
from nsightflow.family.params import (
    ParamAxis,
    check_size,
    check_source_guards,
    merge_axes,
    parse_axes,
    points,
)
from nsightflow.family.pylauncher import launcher_variant
from nsightflow.family.sources import check_source_file, local_includes


def check_names(
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


@dataclass(frozen=True)
class FamilyTuning:
    """The family-level ``params`` and ``constraints``.

    A parameter reaches the variants that use it; a constraint applies where a
    variant has every parameter it names.
    """

    axes: tuple[ParamAxis, ...] = ()
    constraints: tuple[str, ...] = ()


def build_variant(
    folder: Path,
    name: str,
    entry: dict[str, Any],
    shared: tuple[tuple[Arg, ...], FamilyTuning],
    known: set[str],
) -> Variant:
    """One ``variants.<name>`` entry as a checked ``Variant`` at its default params.

    Raises:
        ManifestError: naming the manifest field at fault and how to fix it.
    """
    path = folder / "family.yaml"
    where = f"variants.{name}"
    args, tuning = shared
    source = folder / entry.get("source", f"{name}.cu")
    check_source_file(source, folder, f"{path}: field {where}.source")
    if source.suffix == ".py":  # a Python launcher: no launches of its own here
        return _python_variant(path, name, entry, source, (args, known))
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
        check_names(path, f"{where}.accepts", entry["accepts"], {"n"}, param_names)
    scratch = _scratch(path, where, entry, args, known)
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


def _python_variant(
    path: Path,
    name: str,
    entry: dict[str, Any],
    source: Path,
    scope: tuple[tuple[Arg, ...], set[str]],
) -> Variant:
    """A Python launcher's entry: its scratch and ``init`` checked as for any variant."""
    args, known = scope
    where = f"variants.{name}"
    scratch = _scratch(path, where, entry, args, known)
    _check_init(
        path, where, entry.get("init", {}), {a.name: a for a in (*args, *scratch)}
    )
    return launcher_variant(path, name, entry, source, scratch)


def _scratch(
    path: Path,
    where: str,
    entry: Mapping[str, Any],
    args: tuple[Arg, ...],
    known: set[str],
) -> tuple[Arg, ...]:
    """The variant's scratch buffers, their shapes checked, their names new."""
    scratch = tuple(Arg(role="scratch", **s) for s in entry.get("scratch", []))
    for i, buf in enumerate(scratch):
        check_names(path, f"{where}.scratch.{i}.shape", str(buf.shape), known)
    clash = {s.name for s in scratch} & {a.name for a in args}
    if clash:
        raise ManifestError(
            f"{path}: field {where}.scratch: {sorted(clash)} already name family args; "
            "rename the scratch buffer"
        )
    return scratch


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
        check_names(path, f"{where}.grid.{i}", g, known, params)
    for i, b in enumerate(spec["block"]):
        if isinstance(b, str):
            check_names(path, f"{where}.block.{i}", b, set(), params)
    shared = str(spec.get("shared_bytes", "0"))
    check_names(path, f"{where}.shared_bytes", shared, known, params)
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
        check_names(path, f"{where}.value", item["value"], known)
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
