"""Per-instruction warp samples of ``.ncu-rep`` files, mapped to CUDA source lines.

Nsight Compute samples the warps of each SM sub-partition at a fixed cycle interval
and records each sampled warp's PC and state: the reason it was stalled, or
``selected`` when it issued. The samples are the per-PC instances of
``smsp__pcsamp_warps_issue_stalled_<reason>`` (the PC is the instance's correlation
id), collected by the lean set's warp-sampling metrics or by ``--set full``'s
SourceCounters section. Each PC is mapped to its SASS text and to the CUDA file and
line of the report's source correlation (variants are compiled with ``-lineinfo``).

Table, one row per launch x SASS instruction x reason that has samples::

    family, variant, size, launch, kernel, pc, sass, file, line, source, access,
    reason, samples, inlined

``pc`` is the instruction's byte offset in its function; ``file`` the path the line
table names (as compiled); ``line`` 0 where an instruction has no line information;
``source`` the line's text where the report embeds the file (``--import-source yes``),
else empty. ``access`` the memory kinds of the instruction
(:mod:`nsightflow.tools.sass`, e.g. ``global_store``; ``exit`` for the exit path).
The launch's functions are read whole from the report's SASS: each instruction that
accesses memory or exits gets a row even when it has no samples (``reason`` empty,
``samples`` 0), so that the lines of every global store are known. Reasons use the
names of the stall counters (:data:`STALL_REASONS` of
:mod:`nsightflow.tools.ncu_metrics`): ncu's ``no_instructions`` sample reads
``no_instruction``. A report without samples gives no rows, and a note saying so.

The report names an inlined function's own line (``atomicAdd``: a line of
``device_atomic_functions.hpp``). Where the compile stage recorded the call sites
(:mod:`nsightflow.tools.nvdisasm`), ``file`` and ``line`` are the variant's own line
that called it and ``inlined`` keeps the report's (``device_atomic_functions.hpp:112``);
empty elsewhere.
"""

import re
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, NamedTuple

# ncu_report must load before pandas (the segfault noted in nsightflow.tools.ncu_report_io).
try:
    import ncu_report  # noqa: F401
except ImportError:  # reported with an install hint when a report is read
    pass

import pandas as pd

from nsightflow.contracts import SOURCE
from nsightflow.contracts import columns as col
from nsightflow.errors import ReportParseError
from nsightflow.tools.ncu_metrics import PCSAMP_PREFIX
from nsightflow.tools.ncu_report_io import (
    as_part,
    expand_parts,
    launches_per_size,
    load_context,
    part_actions,
)
from nsightflow.tools.nvdisasm import CallSite
from nsightflow.tools.profile_layout import ReportPart
from nsightflow.tools.sass import function_kinds, joined, opcode

NO_SAMPLES = (
    "no per-instruction samples in this report (profiled without warp sampling): "
    "its hottest source lines are not measured; re-run the profile stage"
)
_REASON = re.compile(re.escape(PCSAMP_PREFIX) + r"([a-z_]+)$")
# Sampled reasons spelled differently from the stall counters' reasons.
_SPELLING = {"no_instructions": "no_instruction"}
INSTRUCTION_BYTES = 16  # every SASS instruction since Volta (sm_70)
MAX_INSTRUCTIONS = 1 << 20  # a bound on one function's walk


def sample_reason(metric: str) -> str | None:
    """The stall reason of a per-PC sample metric, None for any other metric.

    ``smsp__pcsamp_warps_issue_stalled_long_scoreboard`` -> ``long_scoreboard``; the
    ``_not_issued`` twins (samples in cycles where no warp issued) are a subset of
    these and not counted twice.
    """
    match = _REASON.match(metric)
    if match is None or match.group(1).endswith("_not_issued"):
        return None
    reason = match.group(1)
    return _SPELLING.get(reason, reason)


def pc_samples(action: Any) -> dict[int, dict[str, int]]:
    """Samples per PC and reason of one profiled launch (empty: none collected)."""
    found: dict[int, dict[str, int]] = defaultdict(dict)
    for name in action.metric_names():
        reason = sample_reason(name)
        if reason is None:
            continue
        metric = action.metric_by_name(name)
        if metric is None or not metric.has_correlation_ids():
            continue
        pcs = metric.correlation_ids()
        for i in range(metric.num_instances()):
            count = int(metric.as_uint64(i))
            if count:
                pc = int(pcs.as_uint64(i))
                found[pc][reason] = found[pc].get(reason, 0) + count
    return dict(found)


def _function_starts(action: Any) -> list[int]:
    """Start addresses of the launch's functions, ascending (empty if unrecorded)."""
    metric = action.metric_by_name("launch__function_pcs")
    if metric is None:
        return []
    count = metric.num_instances()
    if count == 0:
        return [int(metric.as_uint64())]
    return sorted(int(metric.as_uint64(i)) for i in range(count))


def _offset(pc: int, starts: list[int]) -> int:
    """A PC as the byte offset from the start of the function holding it."""
    below = [s for s in starts if s <= pc]
    return pc - below[-1] if below else pc


def _embedded_sources(action: Any) -> dict[str, list[str]]:
    """The CUDA files the report embeds, as lines (files without text left out)."""
    files = action.source_files()
    return {name: files[name].splitlines() for name in files if files[name]}


def function_sass(action: Any) -> dict[int, str]:
    """SASS of every instruction of the launch's functions, by PC (empty: none kept).

    Each function is read from its start (``launch__function_pcs``) one instruction
    at a time until the report has no SASS there, or the next function starts.
    """
    starts = _function_starts(action)
    found: dict[int, str] = {}
    for k, start in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else None
        pc = start
        for _ in range(MAX_INSTRUCTIONS):
            text = action.sass_by_pc(pc) if pc != end else ""
            if not text:
                break
            found[pc] = " ".join(text.split())
            pc += INSTRUCTION_BYTES
    return found


class Located(NamedTuple):
    """An instruction's CUDA location: the report's, or its inlined call site."""

    file: str
    line: int
    inlined: str  # the report's location where the call site replaced it ("" if not)


def locate(
    offset: int, opcode: str, file: str, line: int, sites: Sequence[CallSite]
) -> Located:
    """The line of the variant's own source an instruction belongs to (pure).

    ``sites`` are the compile stage's call sites (:mod:`nsightflow.tools.nvdisasm`):
    one applies where its offset, innermost file name and line, and opcode are the
    report's (a table from another build of the source does not match, and the
    report's location stands).
    """
    for site in sites:
        if (
            site[col.PC] == offset
            and site[col.LINE] == line
            and PurePath(site[col.FILE]).name == PurePath(file).name
            and site["opcode"] == opcode
        ):
            inner = f"{PurePath(file).name}:{line}"
            return Located(site["call_file"], site["call_line"], inner)
    return Located(file, line, "")


def _text(texts: dict[str, list[str]], file: str, line: int) -> str:
    """A line's text from the report's embedded files (matched by name if needed)."""
    lines = texts.get(file)
    if lines is None:
        named = [v for k, v in texts.items() if PurePath(k).name == PurePath(file).name]
        lines = named[0] if len(named) == 1 else []
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


class Code(NamedTuple):
    """What a launch's functions hold: SASS and access kind by PC, embedded sources."""

    sass: dict[int, str]
    access: dict[int, str]
    texts: dict[str, list[str]]


def launch_code(action: Any, seen: dict[tuple[Any, ...], Code] | None = None) -> Code:
    """The SASS and sources of a launch's functions, read once per function in a file.

    A report's launches of one kernel run the same functions at the same addresses
    (SGEMM's two sizes per variant): ``seen`` keeps what an earlier launch of the
    same name and function starts read, and it is reused where the first
    instruction's SASS is the same, instead of reading about 1,250 instructions one
    call at a time again (90 us a call, half the parse stage's CPU).
    """
    starts = _function_starts(action)
    key = (action.name(), *starts)
    known = seen.get(key) if seen is not None and starts else None
    if known is not None and known.sass.get(starts[0]) == " ".join(
        action.sass_by_pc(starts[0]).split()
    ):
        return known
    sass = function_sass(action)
    access = dict(zip(sass, map(joined, function_kinds(sass.values())), strict=True))
    code = Code(sass, access, _embedded_sources(action))
    if seen is not None:
        seen[key] = code
    return code


def action_rows(
    action: Any,
    sites: Sequence[CallSite] = (),
    seen: dict[tuple[Any, ...], Code] | None = None,
) -> Iterator[dict[str, Any]]:
    """One row per sampled instruction and reason of one launch (see the module).

    ``seen``: the code already read from other launches of the file (:func:`launch_code`).
    """
    samples = pc_samples(action)
    if not samples:
        return
    starts = _function_starts(action)
    code = launch_code(action, seen)
    texts, sass, access = code.texts, code.sass, code.access
    by_offset: dict[int, list[CallSite]] = defaultdict(list)
    for site in sites:
        by_offset[site[col.PC]].append(site)
    for pc in sorted(set(samples) | {p for p, a in access.items() if a}):
        info = action.source_info(pc)
        text = sass.get(pc) or " ".join(action.sass_by_pc(pc).split())
        offset = _offset(pc, starts)
        where = locate(
            offset,
            opcode(text),
            info.file_name() if info is not None else "",
            int(info.line()) if info is not None else 0,
            by_offset.get(offset, ()),
        )
        common = {
            col.PC: offset,
            col.SASS: text,
            col.FILE: where.file,
            col.LINE: where.line,
            col.SOURCE: _text(texts, where.file, where.line),
            col.ACCESS: access.get(pc, ""),
            col.INLINED: where.inlined,
        }
        for reason, count in sorted(samples.get(pc, {"": 0}).items()):
            yield {**common, col.REASON: reason, col.SAMPLES: count}


def read_source_samples(
    report: "Path | ReportPart", inlined: Mapping[str, Sequence[CallSite]] | None = None
) -> tuple[pd.DataFrame, str]:
    """Per-instruction samples of every launch in one ``.ncu-rep`` file (or part).

    ``inlined`` holds the compile stage's call sites per variant name (see
    :func:`locate`); a variant without them keeps the report's lines.

    Returns:
        The table (see the module) and a note: empty, or :data:`NO_SAMPLES` with
        the file's name when the report holds no per-instruction samples.

    Raises:
        ReportParseError: the file is missing, truncated or not an ncu report.
    """
    part = as_part(report)
    path = part.path
    context = load_context(path)
    labels, sizes = part.labels, list(part.sizes)
    sites = (inlined or {}).get(str(labels.get(col.VARIANT, "")), ())
    rows: list[dict[str, Any]] = []
    launch = 0
    seen: dict[tuple[Any, ...], Code] = {}
    for action in part_actions(part, context):
        kernel = action.name()
        rows += [
            {**labels, col.LAUNCH: launch, col.KERNEL: kernel, **row}
            for row in action_rows(action, sites, seen)
        ]
        launch += 1
    if launch == 0:
        raise ReportParseError(
            f"{path}: holds no profiled launch; it is truncated, or ncu's kernel filter "
            "matched nothing: re-run the profile stage"
        )
    per_size = launches_per_size(path, sizes, launch)
    for row in rows:
        row[col.SIZE] = sizes[row[col.LAUNCH] // per_size]
        row[col.LAUNCH] %= per_size
    note = "" if rows else f"{path}: {NO_SAMPLES}"
    return SOURCE.frame(rows), note


def parse_source_files(
    paths: list[Path],
    keep_going: bool = False,
    inlined: Mapping[str, Sequence[CallSite]] | None = None,
) -> tuple[pd.DataFrame, list[str]]:
    """Per-instruction samples of many reports (``.ncu-rep`` files or folders).

    ncu raw CSV exports carry no per-instruction values and are passed over.

    Args:
        paths: Report files, or folders holding them.
        keep_going: An unreadable report becomes a note instead of an exception (the
            metrics table of the parse stage records it as an error already).
        inlined: Call sites of inlined code per variant (:func:`read_source_samples`).

    Returns:
        The table of every report and one note per report without samples.
    """
    frames, notes = [], []
    for part in expand_parts(paths)[0]:
        try:
            frame, note = read_source_samples(part, inlined)
        except ReportParseError as exc:
            if not keep_going:
                raise
            notes.append(str(exc))
            continue
        frames.append(frame)
        notes += [note] if note else []
    frames = [f for f in frames if not f.empty]
    table = pd.concat(frames, ignore_index=True) if frames else SOURCE.empty()
    return table, notes
