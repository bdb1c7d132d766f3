"""What a variant's manifest and source say about it, read where the advice needs it.

Its kernel source (the register caps it already sets) and its grid's blocks at a
size where ncu did not count them. Pure, but for reading the source file.
"""

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok
from nsightflow.errors import ManifestError
from nsightflow.family.expr import evaluate
from nsightflow.tools.compiler_facts import PARTITIONS, REGISTERS_PER_PARTITION
from nsightflow.tools.compiler_facts import REGISTER_UNIT as WARP_REGISTER_UNIT

__all__ = [
    "bounds_args",
    "bounds_registers",
    "grid_blocks",
    "register_cap",
    "source_text",
]

REGISTER_FILE = PARTITIONS * REGISTERS_PER_PARTITION  # 32-bit registers per SM
REGISTER_UNIT = WARP_REGISTER_UNIT // 32  # a thread's registers come in steps of 8
MAX_REGISTERS = 255  # a thread's most
_DEFINE = re.compile(r"^\s*#define\s+(\w+)\s+(\d+)\b", re.MULTILINE)


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


def bounds_registers(variant: Mapping[str, Any]) -> tuple[str, int, int]:
    """The source's ``__launch_bounds__``, the registers per thread they allow, threads.

    ``__launch_bounds__(THREADS, MIN_BLOCKS)`` leaves ``65536 / (THREADS x
    MIN_BLOCKS)`` registers, rounded down to the allocation's 8; with no minimum of
    blocks, one block of the variant's threads (SGEMM ``v4`` at 1,024 threads: 64).
    The minimum is read from the variant's parameters, else the source's
    ``#define``. ('', 255, threads) where the source sets no bounds or they cannot be
    read.
    """
    source = source_text(variant)
    bounds = register_cap(source)
    threads = math.prod(int(b) for b in variant.get("block") or [0])
    if not bounds or threads <= 0:
        return "", MAX_REGISTERS, threads
    args = bounds_args(bounds)
    names = {k: int(v) for k, v in _DEFINE.findall(source)}
    names.update({k: int(v) for k, v in (variant.get(col.PARAMS) or {}).items()})
    try:
        least = int(evaluate(args[1], names)) if len(args) > 1 else 1
    except (ManifestError, TypeError, ValueError):
        return "", MAX_REGISTERS, threads
    per_thread = REGISTER_FILE // (threads * max(least, 1))
    cap = per_thread // REGISTER_UNIT * REGISTER_UNIT
    return bounds, min(cap, MAX_REGISTERS), threads


_BOUNDS = re.compile(r"__launch_bounds__\s*\(((?:[^()]|\([^()]*\))*)\)")
_MAXRREG = re.compile(r"-maxrregcount[= ]?(\d+)")
_COMMENT = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)


def register_cap(source: str, argv: Sequence[str] = ()) -> str:
    """How the source or the nvcc command caps the registers ('' where it does not).

    ``__launch_bounds__(THREADS, MIN_BLOCKS)`` asks ptxas for at most
    ``65536 / (THREADS x MIN_BLOCKS)`` registers (SGEMM ``v7``); with one argument
    (``v6``'s ``__launch_bounds__(THREADS)``) it sets no minimum of blocks, so it
    caps nothing below the 255 a thread may have; ``-maxrregcount`` caps them.
    """
    flag = _MAXRREG.search(" ".join(argv))
    if flag:
        return f"-maxrregcount={flag.group(1)}"
    code = _COMMENT.sub("", source)  # v7's comment quotes __launch_bounds__(256, 2)
    found = _BOUNDS.search(code)
    return f"__launch_bounds__({found.group(1).strip()})" if found else ""


def bounds_args(bounds: str) -> list[str]:
    """The arguments of ``__launch_bounds__(...)``, stripped."""
    inner = bounds[bounds.index("(") + 1 : bounds.rindex(")")]
    return [a.strip() for a in re.split(r",(?![^()]*\))", inner) if a.strip()]
