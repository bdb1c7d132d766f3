"""Instruction mix of each profiled launch, read from its sampled SASS (pure).

The warp sampler records, per instruction, how often a warp was caught issuing it
(``selected``): over a launch those samples are proportional to the warp
instructions each opcode executed, so their shares by opcode class estimate the
instruction mix without SASS-patched counters, also for recordings made before the
lean set held the per-pipe counts. The classes (:data:`CLASSES`, from the base opcode
and, for conversions, the ``.F64`` modifier):

- ``fp32``: FFMA, FADD, FMUL (and their immediate forms); ``fp64``: DFMA, DADD, DMUL,
  DSETP, DMNMX, ``MUFU.*64H`` and conversions to or from F64 (``F2F.F64.F32``, ...);
- ``mufu``: the other special functions (MUFU: ``expf``, ``rsqrtf``, ...);
- ``shuffle``: SHFL, VOTE, MATCH, REDUX (lanes exchanging values through the MIO);
- ``shared``: LDS, STS, LDSM, ATOMS; ``global``: LDG, STG, LD, ST, ATOMG, ATOM, RED,
  REDG; ``local``: LDL, STL; ``branch``: BRA, BRX, BSSY, BSYNC, WARPSYNC;
- ``other``: integer, logic, moves, predicates, barriers and the rest.

Columns per variant and size (:func:`mix_columns`): ``mix_<class>`` the class's share
of the launch's ``selected`` samples (NaN without samples); ``line_<class>`` for
``fp64``, ``mufu`` and ``shuffle``, the source line holding most of that class's
samples (0: none); ``branch_line``, the line of the divergent branch nearest before
the launch's hottest instruction (:func:`branch_line`), with ``branch_source`` its
text. Multi-launch runs are read on their launch with the most samples, as the hot
lines are.
"""

import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from nsightflow.analysis.hotspots import locate
from nsightflow.contracts import columns as col
from nsightflow.tools.sass import opcode

CLASSES: tuple[str, ...] = (
    "fp32",
    "fp64",
    "mufu",
    "shuffle",
    "shared",
    "global",
    "local",
    "branch",
    "other",
)
LINE_CLASSES: tuple[str, ...] = ("fp64", "mufu", "shuffle")
# MIO-issued work by class: what fills the MIO queue besides shared memory
MIO_CLASSES: tuple[str, ...] = ("shared", "shuffle", "mufu")
_BY_OPCODE: dict[str, str] = {
    **dict.fromkeys(("FFMA", "FADD", "FMUL", "FFMA32I", "FADD32I", "FMUL32I"), "fp32"),
    **dict.fromkeys(("DFMA", "DADD", "DMUL", "DSETP", "DMNMX", "DSET"), "fp64"),
    **dict.fromkeys(("SHFL", "VOTE", "VOTEU", "MATCH", "REDUX"), "shuffle"),
    **dict.fromkeys(("LDS", "STS", "LDSM", "ATOMS"), "shared"),
    **dict.fromkeys(
        ("LDG", "STG", "LD", "ST", "ATOMG", "ATOM", "RED", "REDG"), "global"
    ),
    **dict.fromkeys(("LDL", "STL"), "local"),
    **dict.fromkeys(("BRA", "BRX", "BSSY", "BSYNC", "WARPSYNC"), "branch"),
}
_CONVERSIONS = ("F2F", "F2I", "I2F", "F2FP")
_FORWARD_BRANCH = re.compile(r"^@!?P\d\s+BRA\s+(?:`\([^)]*\)\s+)?(0x[0-9a-fA-F]+)")
_ANY_BRANCH_TARGET = re.compile(r"\bBRA\s+(?:`\([^)]*\)\s+)?(0x[0-9a-fA-F]+)")
# the text of a line that can split a warp: an if, a ternary, a switch
_CONDITION = re.compile(r"\bif\s*\(|\?|\bswitch\s*\(")


def op_class(sass: str) -> str:
    """The class of one SASS instruction (see the module docstring)."""
    op = opcode(sass)
    if op == "MUFU":
        return "fp64" if "64H" in sass else "mufu"
    if op in _CONVERSIONS:
        return "fp64" if ".F64" in sass else "other"
    return _BY_OPCODE.get(op, "other")


def _main_launch(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows of the launch with the most samples (a multi-kernel run's longest)."""
    totals = rows.groupby(col.LAUNCH)[col.SAMPLES].sum()
    return rows[rows[col.LAUNCH] == totals.idxmax()]


def launch_mix(rows: pd.DataFrame) -> dict[str, float]:
    """``mix_<class>`` and ``line_<class>`` of one launch's instruction rows."""
    classes = rows[col.SASS].fillna("").astype(str).map(op_class)
    issued = rows[rows[col.REASON] == "selected"].groupby(classes)[col.SAMPLES].sum()
    total = float(issued.sum())
    out: dict[str, float] = {
        f"mix_{c}": float(issued.get(c, 0.0)) / total if total > 0 else float("nan")
        for c in CLASSES
    }
    for c in LINE_CLASSES:
        mine = rows[(classes == c) & (rows[col.SAMPLES] > 0)]
        by_line = mine.groupby(col.LINE)[col.SAMPLES].sum()
        out[f"line_{c}"] = float(str(by_line.idxmax())) if len(by_line) else 0.0
    return out


def _function_base(rows: pd.DataFrame) -> int | None:
    """The address of offset 0: from the branch after ``EXIT`` that targets itself.

    That branch is the unpredicated ``BRA`` 16 bytes after an ``EXIT``, whose target
    minus its offset is the function's start (aligned to :data:`ALIGN` bytes).
    """
    texts = rows[col.SASS].fillna("").astype(str)
    exits = {
        int(pc)
        for pc, t in zip(rows[col.PC], texts, strict=True)
        if opcode(t) == "EXIT"
    }
    for pc, sass in zip(rows[col.PC], texts, strict=True):
        found = _ANY_BRANCH_TARGET.search(sass)
        if not found or opcode(sass) != "BRA" or sass.startswith("@"):
            continue
        base = int(found.group(1), 16) - int(pc)
        if int(pc) - 16 in exits and base >= 0 and base % ALIGN == 0:
            return base
    return None


ALIGN = 128  # a function's code starts at least this aligned


def _hot_pc(per_pc: pd.DataFrame) -> int:
    """The median offset, by issue samples, of the line that issued the most.

    Issue (``selected``) samples count the instructions executed, so this is where
    the work is; all samples would favour where warps wait (in an issue-bound kernel,
    new warps wait at their first instruction, the bounds check, until they are
    picked). The median skips the few instructions a line has hoisted above its
    branch.
    """
    by_line = per_pc.groupby(col.LINE)["issued"].sum()
    mine = per_pc[per_pc[col.LINE] == by_line.idxmax()].sort_index()
    half = mine["issued"].cumsum() >= mine["issued"].sum() / 2
    return int(str(mine.index[int(half.to_numpy().argmax())]))


def branch_line(
    rows: pd.DataFrame, texts: Mapping[str, list[str]]
) -> tuple[int, str] | None:
    """The divergent branch nearest before the launch's hottest instruction, or None.

    A predicated branch that jumps forward (an ``if`` or its ``else``; a loop's
    back-edge jumps backward) at a lower offset than the hottest line's code
    (:func:`_hot_pc`), on a line whose text can split a warp (``if (``, ``?``, ``switch``):
    the condition that decides which lanes run the hot code. The parse stage keeps
    every predicated branch (:mod:`nsightflow.tools.sass`), sampled or not.

    Args:
        rows: One launch's instruction rows (``pc, sass, file, line, source,
            samples``).
        texts: The lines of each recorded file, where the report embeds no text.
    """
    issued = rows[col.SAMPLES].where(rows[col.REASON] == "selected", 0)
    per_pc = (
        rows.assign(issued=issued)
        .groupby(col.PC)
        .agg(
            sass=(col.SASS, "first"),
            file=(col.FILE, "first"),
            line=(col.LINE, "first"),
            source=(col.SOURCE, "first"),
            issued=("issued", "sum"),
        )
    )
    base = _function_base(rows.reset_index(drop=True))
    if per_pc["issued"].sum() <= 0 or base is None:
        return None
    hot = _hot_pc(per_pc)
    best: tuple[int, str] | None = None
    for index, row in per_pc.iterrows():
        pc = int(str(index))
        found = _FORWARD_BRANCH.match(str(row[col.SASS]))
        if not found or pc >= hot or int(found.group(1), 16) - base <= pc:
            continue
        line = int(row[col.LINE]) if row[col.LINE] == row[col.LINE] else 0
        text = row[col.SOURCE] if isinstance(row[col.SOURCE], str) else ""
        lines = texts.get(str(row[col.FILE]), [])
        if not text and 0 < line <= len(lines):
            text = lines[line - 1]
        if line > 0 and _CONDITION.search(text):
            best = (line, text.strip())  # pcs ascend: the last is the nearest
    return best


def mix_columns(
    instructions: pd.DataFrame, texts: Mapping[Path, list[str]], family_dir: Path
) -> pd.DataFrame:
    """One row per variant and size with the mix columns of the module docstring.

    Args:
        instructions: The parse stage's per-instruction tables, concatenated.
        texts: Lines of each source file (:func:`nsightflow.analysis.hotspots.read_hotspot_inputs`).
        family_dir: The family's folder, where the recorded file paths are found.
    """
    if instructions.empty or col.SASS not in instructions:
        return pd.DataFrame(columns=[col.VARIANT, col.SIZE])
    by_file: dict[str, list[str]] = {}
    for recorded in instructions[col.FILE].dropna().astype(str).unique():
        path = locate(recorded, family_dir)
        by_file[recorded] = texts.get(path, []) if path is not None else []
    records = []
    for (variant, size), rows in instructions.groupby([col.VARIANT, col.SIZE]):
        launch = _main_launch(rows)
        record: dict[str, object] = {col.VARIANT: variant, col.SIZE: int(str(size))}
        record.update(launch_mix(launch))
        found = branch_line(launch, by_file)
        record["branch_line"] = found[0] if found else 0
        record["branch_source"] = found[1] if found else ""
        records.append(record)
    return pd.DataFrame(records)


def with_mix(frame: pd.DataFrame, mix: pd.DataFrame) -> pd.DataFrame:
    """The analysis table with the mix columns joined on variant and size (new frame)."""
    if mix.empty:
        return frame.copy()
    mix = mix.assign(variant=mix[col.VARIANT].astype(object))
    return frame.merge(mix, on=[col.VARIANT, col.SIZE], how="left", validate="m:1")
