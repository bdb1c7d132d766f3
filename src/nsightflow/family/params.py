"""Tunable parameters of a variant: axes, their space, and the checks made at load.

A manifest declares ``params`` (at the family's top level, inherited by every variant
that uses the name, or per variant) as axes of integer values, each with a default (the hand-picked value
the variant runs at when nothing is swept) and a ``quick`` subset (the small sweep of a
default run)::

    params:
      BK: {values: [8, 16, 32], default: 8, quick: [8, 16]}
      TM: [8, 4]            # a bare list: default = the first value, quick = [default]
    constraints:
      - "(BM // TM) * (BN // TN) <= 1024"

Every parameter reaches nvcc as ``-D<NAME>=<value>``; ``block``, ``grid``,
``shared_bytes`` and ``accepts`` may use the names. A configuration is one value per
axis; :func:`config_id` names it (``BK16_TM8``), the name its cubin and cache entry
carry. The space is the product of the axes; ``constraints`` (expressions over the
parameters) cut it, and the cut points are data of a sweep, not errors.
"""

import itertools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from nsightflow.errors import ManifestError

# Points of a declared space: every one is evaluated at load time (constraints and
# block), so the bound keeps loading a manifest quick (~1 s at this many points).
MAX_SPACE = 20_000
SPACES = ("quick", "full")


@dataclass(frozen=True)
class ParamAxis:
    """One tunable parameter: its values, its default and its quick subset."""

    name: str
    values: tuple[int, ...]
    default: int
    quick: tuple[int, ...]

    def chosen(self, space: str) -> tuple[int, ...]:
        """The values this axis takes in ``space`` (``quick`` or ``full``)."""
        return self.quick if space == "quick" else self.values


def config_id(values: Mapping[str, int]) -> str:
    """A configuration as a file-name-safe id, axes in declaration order."""
    return "_".join(f"{k}{v}" for k, v in values.items())


def parse_axes(where: str, raw: Mapping[str, Any]) -> tuple[ParamAxis, ...]:
    """Axes from the manifest's ``params`` mapping (schema-checked already).

    Raises:
        ManifestError: a default or quick value that is not among the values.
    """
    axes = []
    for name, spec in raw.items():
        if isinstance(spec, list):
            spec = {"values": spec}
        values = tuple(int(v) for v in spec["values"])
        default = int(spec.get("default", values[0]))
        quick = tuple(int(v) for v in spec.get("quick", [default]))
        stray = sorted({v for v in (default, *quick) if v not in values})
        if stray:
            raise ManifestError(
                f"{where}.params.{name}: {stray} not among the values {list(values)}; "
                "default and quick must be declared values"
            )
        axes.append(ParamAxis(name, values, default, quick))
    return tuple(axes)


def merge_axes(
    family: tuple[ParamAxis, ...], variant: tuple[ParamAxis, ...]
) -> tuple[ParamAxis, ...]:
    """The family's axes, each replaced by the variant's axis of the same name."""
    own = {a.name: a for a in variant}
    merged = [own.pop(a.name, a) for a in family]
    return (*merged, *own.values())


def space_size(axes: tuple[ParamAxis, ...], space: str = "full") -> int:
    """The number of points of the product of the axes."""
    size = 1
    for axis in axes:
        size *= len(axis.chosen(space))
    return size


def points(
    axes: tuple[ParamAxis, ...], space: str = "full"
) -> Iterator[dict[str, int]]:
    """Every point of the space, the first axis varying slowest."""
    names = [a.name for a in axes]
    for combo in itertools.product(*(a.chosen(space) for a in axes)):
        yield dict(zip(names, combo, strict=True))


def check_size(where: str, axes: tuple[ParamAxis, ...]) -> None:
    """Reject a space too large to check at load time."""
    size = space_size(axes)
    if size > MAX_SPACE:
        raise ManifestError(
            f"{where}.params: the space has {size:,} points, more than {MAX_SPACE:,}; "
            "drop values or split the variant"
        )


_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
_IFNDEF = re.compile(r"^\s*#\s*ifndef\s+([A-Za-z_][A-Za-z0-9_]*)", re.M)
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def check_source_guards(
    where: str, texts: Mapping[Path, str], names: list[str], in_manifest: set[str]
) -> None:
    """Each parameter is used, and any ``#define`` of it in the sources is guarded.

    ``-DBK=16`` changes nothing when the source says ``#define BK 8`` unguarded (nvcc
    warns, and the source's value wins): the sweep would time one kernel many times.

    Args:
        where: Manifest location for the message.
        texts: The variant's source and the headers it includes, by path.
        names: The parameter names.
        in_manifest: The names the variant's block, grid, shared_bytes and accepts use.

    Raises:
        ManifestError: a parameter used nowhere, or an unguarded define.
    """
    for name in names:
        used = name in in_manifest or any(
            name in _WORD.findall(text) for text in texts.values()
        )
        if not used:
            raise ManifestError(
                f"{where}.params.{name}: used neither in "
                f"{sorted(p.name for p in texts)} nor in the variant's block, grid, "
                "shared_bytes or accepts; sweeping it would change nothing"
            )
        for path, text in texts.items():
            for match in _DEFINE.finditer(text):
                if match.group(1) != name:
                    continue
                guards = [
                    m
                    for m in _IFNDEF.finditer(text[: match.start()])
                    if m.group(1) == name
                ]
                if not guards:
                    raise ManifestError(
                        f"{path}: #define {name} is not inside '#ifndef {name}'; the "
                        f"swept -D{name}=... would be overridden (params in {where})"
                    )
