"""Instructions a step moved to another pipe, with the line that issues them (pure).

A step that turns float arithmetic into double (an unsuffixed literal, ``exp`` on a
double) moves work to the FP64 pipe; one that calls ``expf`` or ``rsqrtf`` moves it to
the XU pipe's special functions. :func:`pipe_moves` says so where a pipe's warp
instructions went from at most :data:`NONE_SHARE` of the issued instructions to at
least :data:`SOME_SHARE` (or back), with the line holding most of that pipe's samples:
"FP64 instructions 0 -> 31 M: line 22". The counts come from the per-pipe counters
(``smsp__inst_executed_pipe_<pipe>.sum``), else from the sampled SASS
(:mod:`nsightflow.analysis.mix`) times the issued instructions.
"""

from collections.abc import Mapping
from typing import Any

import pandas as pd

from nsightflow.diagnosis.lines import line_text_code
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg

NONE_SHARE = 0.01  # a pipe's share of the issued warp instructions that is "none"
SOME_SHARE = 0.05  # ... and that is work moved there
# pipe -> (its warp-instruction counter column, its sampled class, its line column)
MOVABLE: dict[str, tuple[str, str, str]] = {
    "fp64": ("inst_pipe_fp64", "mix_fp64", "line_fp64"),
    "xu": ("inst_pipe_xu", "mix_mufu", "line_mufu"),
}


def pipe_count(row: Mapping[str, Any], pipe: str) -> float:
    """A pipe's warp instructions (counter, else sampled share x issued; NaN: n/a)."""
    counter, share, _ = MOVABLE[pipe]
    value = num(row, counter)
    if ok(value):
        return value
    return num(row, share) * num(row, "inst_executed")


def pipe_moves(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    hotspots: pd.DataFrame | None = None,
) -> list[Finding]:
    """The pipes a step moved work to or away from (see the module docstring)."""
    found = []
    for pipe, (_, _, line_key) in MOVABLE.items():
        x, y = pipe_count(before, pipe), pipe_count(after, pipe)
        i0, i1 = num(before, "inst_executed"), num(after, "inst_executed")
        if not all(ok(v) and v >= 0 for v in (x, y)) or not (i0 > 0 and i1 > 0):
            continue
        s0, s1 = x / i0, y / i1
        if not (
            (s0 <= NONE_SHARE and s1 >= SOME_SHARE)
            or (s1 <= NONE_SHARE and s0 >= SOME_SHARE)
        ):
            continue
        side = after if s1 > s0 else before
        line = int(num(side, line_key)) if ok(num(side, line_key)) else 0
        where = (
            msg("pipe_line", line=line, code=line_text_code(hotspots, side, line))
            if line > 0
            else ""
        )
        found.append(
            Finding(
                "pipe_moved",
                params={
                    "pipe": msg(f"pipe_{pipe}"),
                    "x": x / 1e6,
                    "y": y / 1e6,
                    "s0": 100 * s0,
                    "s1": 100 * s1,
                    "where": where,
                },
                metric=MOVABLE[pipe][0],
                before=x,
                after=y,
                threshold=SOME_SHARE,
                line=line,
            )
        )
    return found
