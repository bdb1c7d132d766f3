"""The source line a primary finding cites: where one line holds most of the samples.

A finding says which mechanism costs the time; ``hotspots.csv``
(:mod:`nsightflow.analysis.hotspots`) says which CUDA line the warps were sampled on.
The primary finding of a baseline or a step names its line when both agree:

- one line holds at least :data:`LINE_MAJORITY` of its launch's warp-state samples
  (the launch of the run with the most samples), and
- that line makes the kind of access the finding is about (:data:`ACCESS_OF_RULE`,
  from the line's SASS: a store finding needs a global store on the line, a load
  finding a global load, bank conflicts a shared-memory access, ...);
- at least :data:`CAUSE_PART` of the line's samples are in the finding's own stall
  reasons (its ``evidence``): the line waits on what the finding names, not on
  something else at the same access (a load/store-queue finding does not cite a
  store line whose warps wait on its loads' data);
- for a finding about anything but global stores, the line holds that majority
  without the exit's ``drain`` samples counted to it
  (:func:`nsightflow.analysis.hotspots.attribute_drain`).

A finding about no access (issue slots, occupancy, idle SMs, the clock) never cites
a line; nor does any finding where the hottest line lacks the access (its samples
are then somewhere the finding does not explain, and naming the line would say so
falsely). Pure functions.
"""

from collections.abc import Mapping
from dataclasses import replace
from pathlib import PurePath
from typing import Any

import pandas as pd

from nsightflow.analysis.hotspots import SAY_DRAIN, HotLine, hottest_line
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.i18n.markup import code_span
from nsightflow.tools.sass import GLOBAL_WRITES

LINE_MAJORITY = 0.5  # share of a launch's samples one line must hold to be named
CAUSE_PART = 0.25  # part of the line's samples that must be in the finding's stalls
CODE_CHARS = 60  # characters of the line's code quoted in the sentence

# The memory kinds (nsightflow.tools.sass) a mechanism's line must make.
ACCESS_OF_RULE: dict[str, tuple[str, ...]] = {
    "uncoalesced_stores": ("global_store",),
    "store_drain": ("global_store", "global_atomic"),
    "uncoalesced_loads": ("global_load",),
    "uncoalesced_access": ("global_load", "global_store"),
    "memory_latency": ("global_load",),
    "low_occupancy": ("global_load",),
    "bytes_in_flight": ("global_load", "global_store"),
    "dram_bandwidth": ("global_load", "global_store"),
    "dram_excess": ("global_load", "global_store"),
    "lsu_queue": ("global_load", "global_store", "global_atomic"),
    "global_atomics": ("global_atomic",),
    "local_memory": ("local",),
    "bank_conflicts": ("shared_load", "shared_store"),
    "shared_atomics": ("shared_atomic",),
    "shared_pipe": ("shared_load", "shared_store", "shared_atomic"),
    "barrier": ("barrier",),
}


def cited_line(
    hotspots: pd.DataFrame | None,
    rule: str,
    variant: str,
    size: int,
    reasons: tuple[str, ...],
) -> tuple[HotLine, tuple[str, ...]] | None:
    """The line a finding of ``rule`` on ``variant`` at ``size`` cites, or None.

    ``reasons``: the finding's stall reasons (none: no line is cited).

    Returns:
        The hottest line and the kinds of its access the finding is about, where
        the line holds >= :data:`LINE_MAJORITY` of the samples and has such an
        access; else None (not sampled, no majority, no such access, or a rule
        about no access). A finding about no global store needs the majority
        without the exit's ``drain`` counted to the line: those samples wait for
        the line's stores, not for what the finding names.
    """
    wanted = ACCESS_OF_RULE.get(rule)
    if not wanted:
        return None
    top = hottest_line(hotspots, variant, size)
    if top is None or top.line <= 0 or top.share < LINE_MAJORITY:
        return None
    kinds = tuple(k for k in wanted if k in top.access)
    if not kinds:
        return None
    if not reasons or top.reason_part(reasons) < CAUSE_PART:
        return None
    if not GLOBAL_WRITES & set(wanted) and top.share - top.attributed_drain < (
        LINE_MAJORITY
    ):  # the majority only with the exit's drain: samples of its stores, not of this
        return None
    return top, kinds


def _code(source: str) -> str | dict[str, str]:
    """The line's code as a code span (kernel text is data), shortened."""
    code = " ".join(source.split())
    if len(code) > CODE_CHARS:
        code = code[: CODE_CHARS - 3] + "..."
    return code_span(code) if code else msg("line_no_code")


def _kinds(kinds: tuple[str, ...]) -> dict[str, Any]:
    """The accesses as one message: ``global load and global store``."""
    found = msg(f"access_{kinds[-1]}")
    for kind in reversed(kinds[:-1]):
        found = msg("access_and", first=msg(f"access_{kind}"), second=found)
    return found


def with_line(
    finding: Finding, hotspots: pd.DataFrame | None, variant: str, size: int
) -> Finding:
    """``finding`` with its line appended (sentence, ``line``, ``line_share``).

    The finding as it is where :func:`cited_line` names no line.
    """
    reasons = tuple(r.strip() for r in finding.evidence.split(",") if r.strip())
    found = cited_line(hotspots, finding.rule, variant, size, reasons)
    if found is None:
        return finding
    top, kinds = found
    name = PurePath(top.file).name
    fields: dict[str, Any] = {
        col.LINE: top.line,
        col.VARIANT: variant,
        "in_file": ""
        if name in ("", f"{variant}.cu")
        else msg("line_in_file", file=code_span(name)),  # a recorded name: data
        col.CODE: _code(top.source),
        col.ACCESS: _kinds(kinds),
        col.SHARE: 100 * top.share,
        "majority": 100 * LINE_MAJORITY,
        col.REASON: top.reason,
        "reason_share": 100 * top.reason_share,
        "stalls": " + ".join(code_span(r) for r in reasons),
        "cause_share": 100 * top.reason_part(reasons),
        "cause_part": 100 * CAUSE_PART,
    }
    where = msg("line_where", **fields)
    if top.attributed_drain >= SAY_DRAIN:
        drain = {"pct": 100 * top.attributed_drain, "exit_line": top.drain_from_line}
        line = msg("line_cite_drain", where=where, **drain)
    else:
        line = msg("line_cite", where=where)
    head = dict(finding.params)
    if "@" not in head:  # a rule whose id is its template key
        head = msg(finding.rule, **head)
    return replace(
        finding,
        params=msg("with_line", finding=head, line=line),
        line=top.line,
        line_share=top.share,
    )


# Rules whose line is not the hottest one but the line of a kind of instruction
# (nsightflow.analysis.mix): the branch that splits the warps, the shuffles, the
# special functions, the FP64 instructions.
CLASS_LINE: dict[str, str] = {
    "idle_lanes": "branch_line",
    "mio_shuffle": "line_shuffle",
    "mio_special": "line_mufu",
    "fp64_pipe": "line_fp64",
    "fp64_work": "line_fp64",
}


def _line_text(hotspots: pd.DataFrame | None, row: Mapping[str, Any], line: int) -> str:
    """The source text of ``line`` of the row's launch (from the hot-line table)."""
    if row.get("branch_line") == line and isinstance(row.get("branch_source"), str):
        return str(row["branch_source"])
    if hotspots is None or hotspots.empty:
        return ""
    rows = hotspots[
        (hotspots[col.VARIANT] == row.get(col.VARIANT))
        & (hotspots[col.SIZE] == row.get(col.SIZE))
        & (hotspots[col.LINE] == line)
    ]
    return str(rows[col.SOURCE].iloc[0]) if len(rows) else ""


def line_text_code(
    hotspots: pd.DataFrame | None, row: Mapping[str, Any], line: int
) -> str | dict[str, str]:
    """The code of ``line`` of the row's launch, as the sentence quotes it."""
    return _code(_line_text(hotspots, row, line))


def with_class_line(
    finding: Finding, hotspots: pd.DataFrame | None, row: Mapping[str, Any]
) -> Finding | None:
    """``finding`` citing the line of its kind of instruction, or None (no such line).

    For the rules of :data:`CLASS_LINE`: the row's column names the line (0: none).
    """
    column = CLASS_LINE.get(finding.rule)
    value = row.get(column) if column else None
    try:
        line = int(float(value))  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    if line <= 0:
        return None
    cited = msg(
        "line_class",
        what=msg(f"line_what_{finding.rule}"),
        line=line,
        code=line_text_code(hotspots, row, line),
    )
    head = dict(finding.params)
    if "@" not in head:
        head = msg(finding.rule, **head)
    return replace(
        finding, params=msg("with_line", finding=head, line=cited), line=line
    )


def cite(
    finding: Finding,
    hotspots: pd.DataFrame | None,
    row: Mapping[str, Any],
) -> Finding:
    """``finding`` with the line it is about: its kind's line, else the hottest one."""
    found = with_class_line(finding, hotspots, row)
    if found is not None:
        return found
    return with_line(finding, hotspots, str(row[col.VARIANT]), int(row[col.SIZE]))
