"""Hotspots: warp-state samples per CUDA source line of every profiled launch.

Reads the parse stage's per-instruction tables (:mod:`nsightflow.tools.ncu_source`)
and writes ``results/analysis/<family>/hotspots.csv``, one row per launch x source
line that holds samples::

    family, variant, size, launch, kernel, file, line, source, samples, share,
    top_reason, top_reason_share, access, attributed_drain, drain_from_line, inlined,
    samples_<reason>...

``share`` is the line's part of its launch's samples (the shares of one launch sum to
1), ``top_reason`` the state most of the line's samples were in (a stall reason, or
``selected`` when the warp issued) and ``top_reason_share`` its part of the line's
samples; ``samples_<reason>`` counts the samples per reason (:data:`REASONS` first,
then any other reason the GPU reported). ``file`` is the path relative to the
family's folder where the file is found there, ``source`` the line's text: the one
embedded in the report where it is, else the line of the file in the kernels folder.
``access`` lists the memory kinds of the line's instructions (:mod:`nsightflow.tools.sass`,
``;``-separated, e.g. ``global_load;global_store``; empty in tables parsed before
the column existed). ``inlined`` names the inlined functions' own lines whose samples
the line holds (``device_atomic_functions.hpp:112`` on an ``atomicAdd`` line), where
the compile stage recorded their call sites (:mod:`nsightflow.tools.nvdisasm`). Rows are in launch order, hottest line first. Line 0 holds the
samples of instructions without line information.

**Drain at the exit** samples are counted to the store lines the warps wait for
(:mod:`nsightflow.analysis.drain`): ``attributed_drain`` says how many of a line's
samples (all ``drain``) came from the exit, ``drain_from_line`` the line of the ``EXIT``
they belong to (0 elsewhere).

:func:`build_hotspots` is pure; :func:`read_hotspot_inputs` and
:func:`write_hotspots` touch files.
"""

import os
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePath
from typing import NamedTuple

import pandas as pd

from nsightflow.analysis.drain import LAUNCH_KEYS, attribute_drain
from nsightflow.contracts import HOTSPOTS, SOURCE
from nsightflow.contracts import columns as col
from nsightflow.tools.ncu_metrics import STALL_REASONS
from nsightflow.tools.sass import joined, split

KEYS = LAUNCH_KEYS
__all__ = ["attribute_drain"]  # re-exported: the drain is part of the hot lines
# Share of a launch's samples moved from the exit that the report's text mentions
# (below it the moved samples are in the table's columns only).
SAY_DRAIN = 0.01
LINE_KEYS = [*KEYS, col.FILE, col.LINE]
# The sampled states in the stall counters' order (ncu_metrics.STALL_REASONS);
# sm_90 samples one more, ``warpgroup_arrive`` (wgmma), listed when it occurs.
REASONS: tuple[str, ...] = STALL_REASONS
COLUMNS = [*HOTSPOTS.columns, *(f"samples_{r}" for r in REASONS)]


class HotLine(NamedTuple):
    """The hottest source line of a launch (see :func:`hottest_line`)."""

    line: int
    share: float
    reason: str
    source: str
    reason_share: float = 1.0
    access: frozenset[str] = frozenset()
    attributed_drain: float = 0.0  # share of the launch's samples moved from the exit
    drain_from_line: int = 0
    by_reason: tuple[tuple[str, float], ...] = ()  # the line's samples per state
    file: str = ""  # the line's file (relative to the family's folder where found)

    def reason_part(self, reasons: Sequence[str]) -> float:
        """The part of the line's samples in ``reasons`` (0-1; 0 without counts)."""
        counts = dict(self.by_reason)
        total = sum(counts.values())
        return sum(counts.get(r, 0.0) for r in reasons) / total if total > 0 else 0.0


def _reason_columns(reasons: Sequence[str]) -> list[str]:
    extra = sorted(set(reasons) - set(REASONS))
    return [f"samples_{r}" for r in (*REASONS, *extra)]


def line_table(instructions: pd.DataFrame) -> pd.DataFrame:
    """Samples per launch and source line, from per-instruction rows (pure).

    Args:
        instructions: The parse stage's per-instruction table (``family, variant,
            size, launch, kernel, file, line, source, access, reason, samples``, one
            row per instruction and reason; without ``access`` in older tables).

    Returns:
        The columns of the module docstring, ``file`` and ``source`` as recorded,
        exit-path ``drain`` attributed to the store lines (:func:`attribute_drain`).
    """
    if instructions.empty:
        return pd.DataFrame(columns=COLUMNS)
    every = instructions.assign(
        file=instructions[col.FILE].fillna("").astype(str),
        line=instructions[col.LINE].fillna(0).astype(int),
        source=instructions[col.SOURCE].fillna("").astype(str),
    )
    every = attribute_drain(every)
    rows = every[every[col.SAMPLES] > 0]
    if rows.empty:
        return pd.DataFrame(columns=COLUMNS)
    wide = rows.pivot_table(
        index=LINE_KEYS,
        columns=col.REASON,
        values=col.SAMPLES,
        aggfunc="sum",
        fill_value=0,
    )
    columns = _reason_columns(list(wide.columns))
    wide = wide.rename(columns=lambda r: f"samples_{r}").reindex(
        columns=columns, fill_value=0
    )
    counts = wide.to_numpy()
    lines = wide.reset_index()
    lines[col.SAMPLES] = counts.sum(axis=1)
    lines[col.SHARE] = lines[col.SAMPLES] / lines.groupby(KEYS)[col.SAMPLES].transform(
        "sum"
    )
    top = counts.argmax(axis=1)
    lines[col.TOP_REASON] = [columns[i].removeprefix("samples_") for i in top]
    lines[col.TOP_REASON_SHARE] = counts.max(axis=1) / lines[col.SAMPLES]
    lines = _line_facts(every, rows, lines)
    return lines.sort_values(
        [*KEYS[:4], col.SAMPLES, col.LINE], ascending=[True] * 4 + [False, True]
    ).reset_index(drop=True)[[*COLUMNS[: -len(REASONS)], *columns]]


def _line_facts(
    every: pd.DataFrame, rows: pd.DataFrame, lines: pd.DataFrame
) -> pd.DataFrame:
    """``lines`` with the drain moved to each, its accesses, inlined code and text.

    ``every``: all instruction rows (sampled or not: the accesses of every memory
    instruction); ``rows``: those with samples.
    """
    moved = rows.groupby(LINE_KEYS)[["attributed", col.DRAIN_FROM_LINE]].max()
    moved["attributed"] = rows.groupby(LINE_KEYS)["attributed"].sum()
    lines = lines.join(moved, on=LINE_KEYS).rename(
        columns={"attributed": col.ATTRIBUTED_DRAIN}
    )
    if col.ACCESS in every:
        access = every.groupby(LINE_KEYS)[col.ACCESS].agg(
            lambda cells: joined(k for c in cells for k in split(c))
        )
        lines[col.ACCESS] = lines.join(access, on=LINE_KEYS)[col.ACCESS].fillna("")
    else:
        lines[col.ACCESS] = ""
    lines[col.INLINED] = _inlined(rows, lines)
    texts = (
        rows[rows[col.SOURCE] != ""]
        .groupby([col.FILE, col.LINE])[col.SOURCE]
        .first()
        .rename(col.SOURCE)
    )
    lines = lines.join(texts, on=[col.FILE, col.LINE])
    lines[col.SOURCE] = lines[col.SOURCE].fillna("")
    return lines


def _inlined(rows: pd.DataFrame, lines: pd.DataFrame) -> "pd.Series[str]":
    """Per line, the inlined functions' own locations its samples came from."""
    if col.INLINED not in rows:
        return pd.Series("", index=lines.index)
    # object first: a table without inlined sites reads the column as all-NaN floats,
    # which pandas will not fill with text (Pandas4Warning)
    cells = rows.assign(inlined=rows[col.INLINED].astype(object).fillna("").astype(str))
    named = cells.groupby(LINE_KEYS)[col.INLINED].agg(
        lambda c: ";".join(sorted({v for v in c if v}))
    )
    return lines.join(named, on=LINE_KEYS)[col.INLINED].fillna("")


def locate(recorded: str, family_dir: Path) -> Path | None:
    """The file of the kernels folder a recorded path names, or None.

    The line table holds the path the file was compiled from (on the GPU machine);
    the longest tail of it found under the family's folder, then under the kernels
    folder, is the same file here.
    """
    parts = PurePath(recorded).parts
    for root in (family_dir, family_dir.parent):
        for k in range(len(parts)):
            if parts[k] in ("/", ".."):
                continue
            candidate = root.joinpath(*parts[k:])
            if candidate.is_file():
                return candidate
    return None


def build_hotspots(
    instructions: pd.DataFrame, family_dir: Path, texts: Mapping[Path, list[str]]
) -> pd.DataFrame:
    """``hotspots.csv`` from per-instruction rows and the family's source files.

    Args:
        instructions: The parse stage's per-instruction tables, concatenated.
        family_dir: The family's folder (``kernels/<family>``).
        texts: Lines of each source file found by :func:`locate` (read by
            :func:`read_hotspot_inputs`); a line's text embedded in the report wins.
    """
    lines = line_table(instructions)
    if lines.empty:
        return lines
    files = {f: locate(f, family_dir) for f in lines[col.FILE].unique()}
    local = lines[col.FILE].map(files)
    known = [(texts.get(p, []) if isinstance(p, Path) else []) for p in local.tolist()]
    from_file = [
        text[n - 1].strip() if 0 < n <= len(text) else ""
        for text, n in zip(known, lines[col.LINE], strict=True)
    ]
    return lines.assign(
        file=[
            os.path.relpath(p, family_dir) if isinstance(p, Path) else f
            for p, f in zip(local, lines[col.FILE], strict=True)
        ],
        source=lines[col.SOURCE].where(lines[col.SOURCE] != "", from_file),
    )


def read_hotspot_inputs(
    paths: Sequence[Path], family_dir: Path
) -> tuple[pd.DataFrame, dict[Path, list[str]]]:
    """The per-instruction tables and the lines of the source files they name."""
    frames = [SOURCE.read(p) for p in paths if p.is_file() and p.stat().st_size > 0]
    frames = [f for f in frames if not f.empty]
    if not frames:
        return pd.DataFrame(), {}
    instructions = pd.concat(frames, ignore_index=True)
    texts = {}
    for recorded in instructions[col.FILE].dropna().astype(str).unique():
        path = locate(recorded, family_dir)
        if path is not None:
            texts[path] = path.read_text(errors="replace").splitlines()
    return instructions, texts


def write_hotspots(paths: Sequence[Path], family_dir: Path, out: Path) -> pd.DataFrame:
    """Write ``hotspots.csv`` of one family from its per-instruction tables."""
    instructions, texts = read_hotspot_inputs(paths, family_dir)
    frame = (
        build_hotspots(instructions, family_dir, texts)
        if not instructions.empty
        else pd.DataFrame(columns=COLUMNS)
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    HOTSPOTS.write(frame, out)
    return frame


def launch_lines(
    hotspots: pd.DataFrame | None, variant: str, size: int
) -> list[tuple[int, str, pd.DataFrame]]:
    """Each launch of a variant's run at ``size``: (launch, kernel, its lines).

    Launch order; each launch's lines hottest first. Empty when not sampled.
    """
    if hotspots is None or hotspots.empty:
        return []
    rows = hotspots[(hotspots[col.VARIANT] == variant) & (hotspots[col.SIZE] == size)]
    return [
        (int(group[col.LAUNCH].iloc[0]), str(group[col.KERNEL].iloc[0]), group)
        for _, group in rows.groupby(col.LAUNCH, sort=True)
    ]


def hottest_line(
    hotspots: pd.DataFrame | None,
    variant: str,
    size: int,
    kernel: str | None = None,
) -> HotLine | None:
    """The source line holding most of a launch's warp-state samples.

    For a step's diagnosis ("line 18 holds 71% of the samples, 83% of them
    long_scoreboard"): the caller decides from ``share`` whether one line holds
    enough of the samples to name it.

    Args:
        hotspots: ``hotspots.csv`` of the family.
        variant: The variant.
        size: The profiled size.
        kernel: The launch's kernel; None: the launch of the run with the most
            samples (a multi-kernel variant's longest launch, where ncu sampled its
            launches at one interval).

    Returns:
        ``(line, share, reason, source, ...)``: line number, share of the launch's
        samples (0-1), the state most of the line's samples were in, the line's
        text, that state's share of the line's samples, the line's memory kinds,
        the share of the launch's samples counted to it from the exit (``drain``)
        and the exit line they came from; None when the variant was not sampled at
        that size.
    """
    launches = launch_lines(hotspots, variant, size)
    if kernel is not None:
        launches = [x for x in launches if x[1] == kernel]
    if not launches:
        return None
    _, _, lines = max(launches, key=lambda x: x[2][col.SAMPLES].sum())
    top = lines.sort_values([col.SAMPLES, col.LINE], ascending=[False, True]).iloc[0]
    total = float(lines[col.SAMPLES].sum())
    moved = _number(top.get(col.ATTRIBUTED_DRAIN))
    return HotLine(
        int(top[col.LINE]),
        float(top[col.SHARE]),
        str(top[col.TOP_REASON]),
        str(top[col.SOURCE]),
        reason_share=float(top[col.TOP_REASON_SHARE]),
        access=frozenset(split(top.get(col.ACCESS))),
        attributed_drain=moved / total if total > 0 else 0.0,
        drain_from_line=int(_number(top.get(col.DRAIN_FROM_LINE))),
        file=str(top.get(col.FILE) or ""),
        by_reason=tuple(
            (str(c).removeprefix("samples_"), _number(top[c]))
            for c in lines.columns
            if str(c).startswith("samples_")
        ),
    )


def _number(value: object) -> float:
    """A count read from the table; 0 where the column is absent or empty."""
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return 0.0
    return number if number == number else 0.0
