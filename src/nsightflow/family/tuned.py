"""Best-known configurations kept with the kernels: ``kernels/<family>/tuned.yaml``.

A full sweep of SGEMM v7 on an H200 found ``BM64_BN256_BK8_TM16_TN8_WN8_MIN_BLOCKS2``
(2.83 ms at n = 4096, 95% of cuBLAS) while the manifest's default runs 7% slower and the
default ``quick`` space does not contain that point. The tuned file keeps such results
per GPU model and variant, with where they came from::

    schema_version: 1
    gpus:
      NVIDIA H200:
        v7_double_buffer:
          params: {BM: 64, BN: 256, BK: 8, TM: 16, TN: 8, WN: 8, MIN_BLOCKS: 2}
          sweep: examples/h200/sweep/sgemm/v7_double_buffer.json (full, exhaustive)
          date: "2026-12-01"

A run on a GPU of that model starts from the entry (:func:`starting_config`); the quick
space of a sweep always contains every entry's point (:func:`space_points`), so this
run's sweep measures it too. Only ``nsightflow sweep --write-tuned`` writes the file
(:func:`write_entry`). GPU models match by name, ignoring case and repeated spaces:
``NVIDIA H200`` is not ``NVIDIA H200 NVL`` (a different power limit).
"""

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from nsightflow.errors import ManifestError
from nsightflow.family.model import Variant
from nsightflow.family.params import config_id, points
from nsightflow.io import read_yaml

FILE = "tuned.yaml"
SCHEMA_VERSION = 1
# Where the configuration a stage ran came from (records' ``config.origin``).
SWEEP, TUNED, DEFAULT = "sweep", "tuned", "default"
_ENTRY_KEYS = {"params", "sweep", "date", "note"}


@dataclass(frozen=True)
class TunedEntry:
    """One variant's best-known configuration on one GPU model."""

    gpu: str
    variant: str
    params: dict[str, int]
    provenance: dict[str, str] = field(default_factory=dict)

    @property
    def config_id(self) -> str:
        """``BM64_BN256_...``: the configuration's name."""
        return config_id(self.params)


def same_gpu(a: str, b: str) -> bool:
    """Whether two GPU names are the same model (case and spacing ignored)."""
    return (
        bool(a.strip())
        and " ".join(a.split()).casefold() == " ".join(b.split()).casefold()
    )


def load(folder: Path, variants: Mapping[str, Variant]) -> list[TunedEntry]:
    """The validated entries of ``folder/tuned.yaml``; none where there is no file.

    Entries of variants not in ``variants`` are checked when the whole family is
    loaded; with one variant given, the others' entries are skipped.

    Raises:
        ManifestError: one line naming the file, the field and the fix.
    """
    path = folder / FILE
    if not path.is_file():
        return []
    data = read_yaml(path)  # bounded: no alias, no key twice
    if not isinstance(data, dict) or set(data) != {"schema_version", "gpus"}:
        raise ManifestError(
            f"{path}: top level: expected exactly the keys schema_version and gpus"
        )
    if data["schema_version"] != SCHEMA_VERSION:
        raise ManifestError(
            f"{path}: schema_version: {data['schema_version']!r}; this nsightflow "
            f"reads {SCHEMA_VERSION}"
        )
    gpus = data["gpus"]
    if not isinstance(gpus, dict):
        raise ManifestError(f"{path}: gpus: expected a mapping GPU model -> variants")
    return [
        _entry(path, str(gpu), str(name), raw, variants)
        for gpu, entries in gpus.items()
        for name, raw in _mapping(path, f"gpus.{gpu}", entries).items()
        if len(variants) != 1 or str(name) in variants
    ]


def _mapping(path: Path, where: str, value: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ManifestError(f"{path}: {where}: expected a mapping, got {value!r}")
    return value


def _entry(
    path: Path, gpu: str, name: str, raw: Any, variants: Mapping[str, Variant]
) -> TunedEntry:
    where = f"gpus.{gpu}.{name}"
    raw = _mapping(path, where, raw)
    variant = variants.get(name)
    if variant is None or not variant.params:
        raise ManifestError(
            f"{path}: {where}: no variant {name!r} with params in family.yaml; "
            f"use one of {sorted(v for v in variants if variants[v].params)}"
        )
    stray = sorted(set(raw) - _ENTRY_KEYS)
    if stray or "params" not in raw:
        raise ManifestError(
            f"{path}: {where}: keys {sorted(raw)}; expected params and optionally "
            f"{sorted(_ENTRY_KEYS - {'params'})}"
        )
    params = _mapping(path, f"{where}.params", raw["params"])
    axes = {axis.name: axis for axis in variant.params}
    if set(params) != set(axes):
        raise ManifestError(
            f"{path}: {where}.params: names {sorted(params)}; give exactly "
            f"{sorted(axes)} (the variant's params)"
        )
    for key, value in params.items():
        if type(value) is not int or value not in axes[key].values:
            raise ManifestError(
                f"{path}: {where}.params.{key}: {value!r} is not one of the declared "
                f"values {list(axes[key].values)}; pick one or declare it in "
                "family.yaml"
            )
    unmet = variant.unmet_constraints(params)
    if unmet:
        raise ManifestError(
            f"{path}: {where}.params: constraint false: {unmet[0]}; pick a "
            "configuration the variant's constraints allow"
        )
    ordered = {axis: int(params[axis]) for axis in axes}
    info = {k: str(raw[k]) for k in sorted(_ENTRY_KEYS - {"params"}) if k in raw}
    return TunedEntry(gpu, name, ordered, info)


def entry_for(entries: list[TunedEntry], variant: str, gpu: str) -> TunedEntry | None:
    """The entry of ``variant`` for the GPU model ``gpu``, if the file has one."""
    found = [e for e in entries if e.variant == variant and same_gpu(e.gpu, gpu)]
    return found[0] if found else None


def space_points(variant: Variant, space: str) -> Iterator[dict[str, int]]:
    """The points of ``space``, then every tuned entry's point not among them.

    Every GPU model's entry is included: the compile stage of a sweep may run on a
    CPU node that cannot see which GPU the sweep will run on.
    """
    seen = []
    for values in points(variant.params, space):
        seen.append(values)
        yield values
    for entry in load(variant.source.parent, {variant.name: variant}):
        if entry.variant == variant.name and entry.params not in seen:
            seen.append(entry.params)
            yield dict(entry.params)


def starting_config(variant: Variant, gpu: str) -> tuple[Variant, dict[str, Any]]:
    """The variant at its tuned configuration for ``gpu``, or at its defaults.

    Returns:
        The variant, and the ``config`` block the stage records: ``id``,
        ``params``, ``origin`` (``tuned`` or ``default``), ``gpu`` and ``detail``.
    """
    if not variant.params:
        return variant, {"id": "", "params": {}, "origin": DEFAULT, "gpu": gpu}
    entries = load(variant.source.parent, {variant.name: variant})
    entry = entry_for(entries, variant.name, gpu)
    if entry is None:
        why = f"no tuned entry for {gpu}" if gpu else "GPU model unknown"
        return variant, config_block(variant.defaults, DEFAULT, gpu, why)
    detail = f"{FILE} for {entry.gpu}" + (
        f" ({entry.provenance['sweep']})" if "sweep" in entry.provenance else ""
    )
    return variant.with_params(entry.params), config_block(
        entry.params, TUNED, gpu, detail
    )


def config_block(
    params: Mapping[str, int], origin: str, gpu: str, detail: str
) -> dict[str, Any]:
    """The ``config`` block of a compile / time / profile record."""
    return {
        "id": config_id(params) if params else "",
        "params": dict(params),
        "origin": origin,
        "gpu": gpu,
        "detail": detail,
    }


def built_config(cubin: Path) -> dict[str, Any] | None:
    """The ``config`` block the compile stage kept beside ``cubin``, if any."""
    resources = cubin.with_suffix(".resources.json")
    try:
        block = json.loads(resources.read_text()).get("config")
    except (OSError, ValueError, AttributeError):
        return None
    return block if isinstance(block, dict) else None


def write_entry(folder: Path, entry: TunedEntry) -> str:
    """Add or replace one entry of ``folder/tuned.yaml``; the line to print.

    The other entries are kept as they are; the replaced one is named in the line,
    so nothing changes unseen.
    """
    path = folder / FILE
    data: dict[str, Any] = {"schema_version": SCHEMA_VERSION, "gpus": {}}
    if path.is_file():
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or data
    gpus = data.setdefault("gpus", {})
    model = next((g for g in gpus if same_gpu(g, entry.gpu)), entry.gpu)
    old = (gpus.setdefault(model, {}) or {}).get(entry.variant)
    gpus[model][entry.variant] = {"params": entry.params, **entry.provenance}
    text = yaml.safe_dump(data, sort_keys=False, default_flow_style=None)
    path.write_text(HEADER + text, encoding="utf-8")
    was = f" (was {config_id(old['params'])})" if old and "params" in old else ""
    return f"{path}: {model} {entry.variant} = {entry.config_id}{was}"


HEADER = (
    "# Best-known configuration per GPU model and variant: runs on a GPU of that\n"
    "# model start from it, and every sweep's quick space contains it. Written by\n"
    "# `nsightflow sweep --write-tuned` (never otherwise); edit by hand with care.\n"
)
