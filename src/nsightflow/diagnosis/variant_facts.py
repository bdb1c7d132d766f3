"""What a variant's manifest and source say about it, read where the advice needs it.

Its kernel source (the register caps it already sets) and its grid's blocks at a
size where ncu did not count them. Pure, but for reading the source file.
"""

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok
from nsightflow.errors import ManifestError
from nsightflow.family.expr import evaluate

__all__ = ["grid_blocks", "source_text"]


def source_text(variant: Mapping[str, Any]) -> str:
    """The variant's kernel source ('' where it cannot be read here)."""
    path = Path(str(variant.get(col.SOURCE) or ""))
    try:
        return path.read_text(errors="replace") if path.suffix == ".cu" else ""
    except OSError:
        return ""


def grid_blocks(row: Mapping[str, Any], variant: Mapping[str, Any]) -> float:
    """Blocks of the variant's (first) launch at the row's size (NaN: not known).

    ncu's count where the size was profiled, else the manifest's grid expressions at
    the variant's compiled parameters.
    """
    measured = num(row, "grid_blocks")
    if ok(measured) and measured > 0:
        return measured
    grid = variant.get("grid") or []
    if not grid:
        return math.nan
    names = {"n": int(row[col.SIZE]), **(variant.get(col.PARAMS) or {})}
    try:
        return float(math.prod(int(evaluate(str(g), names)) for g in grid))
    except (ManifestError, TypeError, ValueError):
        return math.nan
