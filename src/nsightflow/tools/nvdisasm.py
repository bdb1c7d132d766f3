"""Inlined call sites of a cubin's instructions, from ``nvdisasm -gi``.

A CUDA source line is what ``-lineinfo`` records for each SASS instruction: the
innermost location, which for an inlined function of the toolkit (``atomicAdd``,
``__shfl_down_sync``, ``__ldg``) is a line of a CUDA header such as
``device_atomic_functions.hpp``, not a line of the kernel. Nsight Compute's report
keeps that innermost location only. The cubin's line table also records where each
inlined function was called (``nvdisasm --print-line-info-inline``), so the line of
the variant's own source that made the instruction can be named.

:func:`call_sites` returns, for each instruction whose innermost location is outside
the variant's own files, the innermost location, the instruction's opcode and the
first location of its inline chain that is one of the variant's files: the table the
compile stage stores in ``resources.json`` (``inlined``) and the parse stage applies
to the report's lines where offset, file, line and opcode agree.
"""

import importlib.util
import os
import re
import shutil
import subprocess
from pathlib import Path, PurePath
from typing import Any, TypedDict

from nsightflow.contracts import columns as col
from nsightflow.tools.sass import opcode

_SECTION = re.compile(r"^\s*\.section\s+\.text\.(\S+?),")
_LOCATION = re.compile(
    r'^\s*//## File "(?P<file>[^"]+)", line (?P<line>\d+)'
    r'(?: inlined at "(?P<at_file>[^"]+)", line (?P<at_line>\d+))?'
)
_INSTRUCTION = re.compile(r"^\s*/\*(?P<pc>[0-9a-f]{4,})\*/\s+(?P<text>[^;]*);")
TIMEOUT_S = 60
Stored = dict[str, list[Any]]  # the table as resources.json keeps it (see pack)


class CallSite(TypedDict):
    """One instruction whose innermost line is not in the variant's own files."""

    function: str
    pc: int  # byte offset in its function
    opcode: str  # the base opcode, e.g. REDG
    file: str  # innermost location, as compiled
    line: int
    call_file: str  # the first location of the chain in the variant's own files
    call_line: int


def find_nvdisasm() -> str | None:
    """The nvdisasm to use: on PATH, beside nvcc, or from the ``nvidia-cuda-nvdisasm`` wheel."""
    found = shutil.which("nvdisasm")
    if found:
        return found
    nvcc = shutil.which("nvcc")
    if nvcc and (Path(nvcc).resolve().parent / "nvdisasm").is_file():
        return str(Path(nvcc).resolve().parent / "nvdisasm")
    spec = importlib.util.find_spec("nvidia")  # the wheels' namespace package
    roots = (spec.submodule_search_locations or []) if spec is not None else []
    for root in roots:
        for candidate in sorted(Path(root).glob("cu*/bin/nvdisasm"), reverse=True):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def parse_listing(listing: str, own: set[str]) -> list[CallSite]:
    """Call sites of an ``nvdisasm -gi -c`` listing (pure).

    Args:
        listing: nvdisasm's output. Before an instruction whose line changed, it
            prints the inline chain innermost first, one ``//## File`` line per
            level (each but the last ``inlined at`` the next), the function's own
            location last.
        own: Names (basenames) of the variant's own files: its source and the
            headers it includes from its folder.
    """
    sites: list[CallSite] = []
    function, pending = "", False
    chain: list[tuple[str, int]] = []
    for raw in listing.splitlines():
        section = _SECTION.match(raw)
        if section:
            function, chain, pending = section.group(1), [], False
            continue
        location = _LOCATION.match(raw)
        if location:
            if not pending:  # a new chain starts after an instruction
                chain, pending = [], True
            chain.append((location.group("file"), int(location.group("line"))))
            continue
        instruction = _INSTRUCTION.match(raw)
        if not instruction or not chain:
            continue
        pending = False
        inner_file, inner_line = chain[0]
        if PurePath(inner_file).name in own:
            continue
        mine = [(f, n) for f, n in chain[1:] if PurePath(f).name in own]
        if mine:
            sites.append(
                CallSite(
                    function=function,
                    pc=int(instruction.group("pc"), 16),
                    opcode=opcode(instruction.group("text")),
                    file=inner_file,
                    line=inner_line,
                    call_file=mine[0][0],
                    call_line=mine[0][1],
                )
            )
    return sites


def pack(sites: list[CallSite]) -> Stored:
    """The stored form (``resources.json``'s ``inlined``): file names listed once.

    ``{"files": [path, ...], "sites": [[pc, opcode, file, line, call_file,
    call_line], ...]}`` with the files as indices into ``files``.
    """
    files: dict[str, int] = {}
    rows = [
        [
            s[col.PC],
            s["opcode"],
            files.setdefault(s[col.FILE], len(files)),
            s[col.LINE],
            files.setdefault(s["call_file"], len(files)),
            s["call_line"],
        ]
        for s in sites
    ]
    return {col.FILES: list(files), "sites": rows}


def unpack(stored: Stored) -> list[CallSite]:
    """The call sites of a stored table (see :func:`pack`)."""
    files = stored[col.FILES]
    return [
        CallSite(
            function="",
            pc=int(pc),
            opcode=str(op),
            file=files[f],
            line=int(line),
            call_file=files[c],
            call_line=int(call_line),
        )
        for pc, op, f, line, c, call_line in stored["sites"]
    ]


def call_sites(cubin: Path, own: set[str]) -> list[CallSite] | None:
    """Call sites of a cubin's instructions (None: no nvdisasm, or it failed)."""
    tool = find_nvdisasm()
    if tool is None:
        return None
    proc = subprocess.run(
        [tool, "--print-line-info-inline", "--print-code", str(cubin)],
        capture_output=True,
        text=True,
        check=False,
        timeout=TIMEOUT_S,
    )
    if proc.returncode != 0:
        return None
    return parse_listing(proc.stdout, own)
