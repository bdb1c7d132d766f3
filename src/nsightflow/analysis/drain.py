"""Drain at the exit: samples of warps waiting for their stores, counted to the stores.

A warp that has executed ``EXIT`` waits (``drain``) until its outstanding stores
complete; ncu samples it on the exit path (the ``EXIT`` or the instruction after it),
i.e. on the kernel's closing brace or whatever line follows a predicated exit.
:func:`attribute_drain` counts those samples to the lines of the kernel's global stores
and reductions (from the function's whole SASS, sampled or not) that the warp executed
on its way to that ``EXIT``: in the compiler's layout, those after the previous
``EXIT`` and before this one (all of the launch's where that stretch has none), split
in proportion to the number of such instructions per line. The exit line is where the
warp waits, the store lines are what it waits for. Only ``drain`` samples on the exit
path move; a launch without global stores keeps its samples where they are. Pure.
"""

from collections.abc import Sequence

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.tools.sass import GLOBAL_WRITES, opcode, split

LAUNCH_KEYS = [col.FAMILY, col.VARIANT, col.SIZE, col.LAUNCH, col.KERNEL]


def _largest_remainder(total: int, weights: Sequence[int]) -> list[int]:
    """``total`` split in proportion to ``weights`` in whole samples that sum to it."""
    whole = sum(weights)
    exact = [total * w / whole for w in weights]
    parts = [int(x) for x in exact]
    order = sorted(range(len(exact)), key=lambda k: parts[k] - exact[k])
    for k in order[: total - sum(parts)]:
        parts[k] += 1
    return parts


def _split_rows(
    stores: pd.DataFrame, total: int, from_line: int
) -> list[dict[str, object]]:
    """``total`` drain samples as rows on the store lines, by their store count."""
    per_line = stores.groupby([col.FILE, col.LINE], sort=True)
    firsts = per_line.first().reset_index()
    parts = _largest_remainder(total, per_line.size().tolist())
    return [
        {
            **{str(k): v for k, v in first.items()},
            col.REASON: "drain",
            col.SAMPLES: count,
            "attributed": count,
            col.DRAIN_FROM_LINE: from_line,
        }
        for (_, first), count in zip(firsts.iterrows(), parts, strict=True)
        if count
    ]


def _launch_drain(group: pd.DataFrame) -> tuple[list[dict[str, object]], pd.Index]:
    """One launch's exit drain as rows on its store lines, and the rows it replaces.

    Each drain sample belongs to the ``EXIT`` at or before its PC; the stores the
    warp executed on its way there are, in the compiler's layout, those after the
    previous ``EXIT`` and before this one: that segment's store lines share the
    samples by their store count (all the launch's store lines where the segment has
    none).
    """
    stores = group[group["_write"]].drop_duplicates(col.PC)
    drains = group[group["_drain"]]
    if stores.empty or drains.empty:
        return [], pd.Index([])
    ends = sorted(int(pc) for pc in group.loc[group["_exit_op"], col.PC].unique())
    added: list[dict[str, object]] = []
    for end, rows in drains.groupby(
        drains[col.PC].map(lambda pc: max((e for e in ends if e <= pc), default=-1))
    ):
        start = max((e for e in ends if e < end), default=-1)
        inside = stores[(stores[col.PC] > start) & (stores[col.PC] <= end)]
        total = int(rows[col.SAMPLES].sum())
        exit_rows = group[group["_exit_op"] & (group[col.PC] == end)]
        from_line = int(
            exit_rows[col.LINE].iloc[0]
            if not exit_rows.empty
            else rows.sort_values(col.SAMPLES)[col.LINE].to_numpy()[-1]
        )
        chosen = inside if not inside.empty and end >= 0 else stores
        added += _split_rows(chosen.drop(columns=FLAGS), total, from_line)
    return added, drains.index


FLAGS = ["_drain", "_write", "_exit_op"]


def attribute_drain(instructions: pd.DataFrame) -> pd.DataFrame:
    """``drain`` samples on a launch's exit path, counted to its global store lines.

    Pure; see the module docstring. Rows of the per-instruction table, the moved
    samples as ``drain`` rows on the first global store instruction of each store
    line, marked in ``attributed`` (their count) and ``drain_from_line`` (the line of
    their ``EXIT``); ``attributed`` is 0 on every other row. A table
    without ``access`` (parsed before the column existed) is returned as it is.
    """
    out = instructions.reset_index(drop=True).assign(attributed=0, drain_from_line=0)
    if col.ACCESS not in out or out.empty:
        return out
    kinds = out[col.ACCESS].map(split)
    flags = out.assign(
        _drain=kinds.map(lambda k: "exit" in k)
        & (out[col.REASON] == "drain")
        & (out[col.SAMPLES] > 0),
        _write=kinds.map(lambda k: bool(k & GLOBAL_WRITES)),
        _exit_op=out[col.SASS].fillna("").astype(str).map(opcode) == "EXIT",
    )
    added: list[dict[str, object]] = []
    moved = pd.Series(False, index=out.index)
    wanted = flags[flags[FLAGS].any(axis=1)]
    for _, group in wanted.groupby(LAUNCH_KEYS, sort=False):
        rows, replaced = _launch_drain(group)
        if rows:
            added += rows
            moved[replaced] = True
    if not added:
        return out
    extra = pd.DataFrame(added, columns=out.columns)
    return pd.concat([out[~moved], extra], ignore_index=True)
