"""Which parts of a step's account are named as causes: those with a metric that moved.

The split (:func:`nsightflow.diagnosis.step_split.step_terms`) gives every stall
reason a part of the step's change, and the parts add up to it. A part is named as
a cause (a line of its own in the step's Why) only where its own numbers moved:

- a stall ratio (warp cycles per instruction, or per request) whose printed values
  (one decimal, :data:`RESOLUTION`) differ by more than one printed step, 0.1
  cycle, and that moved by at least a tenth of its larger value (:data:`MOVED`,
  the line a coalescing change is held to):
  SGEMM ``v7 -> v8_torch_matmul`` at n = 4096 has seven stall groups within 0.1
  cycle per instruction (MIO 0.2 -> 0.2 was credited 51.4 us added);
- a stall with no counter of its own (:data:`NO_COUNTER`: ``dispatch_stall``,
  which ncu counts without a cause the kernel's code or its counters name) is never
  named: SGEMM ``v6_vectorized``'s dispatch stalls 1.0 -> 0.5 per instruction
  were 354 of its 553 us saved, and no metric or source line says why float4 loads
  would cut them;
- MIO waits of a launch that executes no shared-memory, shuffle or
  special-function instruction (:data:`NO_WORK`, ``mio_other``) are never named:
  hotatomic ``v0``'s short_scoreboard waits at its thread-index line (12,185
  cycles per instruction, 1,804 of the 7,130 us ``v1`` saved) have no MIO work of
  their own to cut, and fell in ``v1``, which adds five shuffles a warp;
- the occupancy factor only where the achieved occupancy moved as printed;
- a mechanism named from its own counter (:data:`OWN_COUNTER`: bank conflicts by
  their replays, local memory by its sectors) only where that counter moved the
  part's way by a tenth or more.

The parts that fail are pooled into one part, :data:`OTHER_STALLS`, with their
names, so that the parts still sum to the change. Pure functions.
"""

import math
from collections.abc import Callable, Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.factors import detail
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.tools import ncu_metrics as M

OTHER_STALLS = "other_stalls"  # the pooled parts of stalls that moved no metric
NO_COUNTER = frozenset({"dispatch"})  # stall groups no counter of their own explains
# MIO waits of a launch with no shared-memory, shuffle or special-function work
NO_WORK = frozenset({"mio_other"})
RESOLUTION = 1  # decimals a stall ratio is printed with (cycles per instruction)
NAMED = 2  # pooled groups a sentence names, the largest (the rest counted)
MOVED = 0.1  # relative change of a ratio or own counter that counts as moving
# a mechanism's own counter (analysis column): it must move the part's way
OWN_COUNTER = {
    "bank_conflicts": "smem_conflict_share",
    "local_memory": "local_sectors",
}
OCCUPANCY = "achieved_occupancy_pct"  # the occupancy factor's own counter (column)
LOCAL_METRIC = f"{M.LOCAL_LD_SECTORS} + {M.LOCAL_ST_SECTORS}"
WHY = ("no_counter", "no_work", "within_print", "counter_still")  # why pooled


def _printed(x: float) -> float:
    """A ratio as the body prints it: one decimal, whole numbers from 1,000."""
    return round(x) if abs(x) >= 1000 else round(x, RESOLUTION)


def moved(x: float, y: float) -> bool:
    """A ratio moved beyond its printing and its noise.

    Its printed values differ by more than one printed step (0.1 cycle: "0.0 ->
    0.1" reads as no more than the printing's resolution), and it moved by a tenth
    of the larger value (:data:`MOVED`).
    """
    if not (ok(x) and ok(y)):
        return False
    step = 10.0**-RESOLUTION if max(abs(x), abs(y)) < 1000 else 1.0
    printed = abs(_printed(y) - _printed(x))  # 1.5 steps: two printed steps or more
    return printed > 1.5 * step and abs(y - x) >= MOVED * max(abs(x), abs(y))


def occupancy_moved(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """The achieved occupancy moved as printed (whole percent; a decimal under 10%).

    SGEMM ``v7 -> v8_torch_matmul`` at n = 4096 read "achieved occupancy 12% -> 12%
    (7.53 of the 161 us saved)" as the step's primary cause.
    """
    x, y = num(before, OCCUPANCY), num(after, OCCUPANCY)
    if not (ok(x) and ok(y)):
        return True  # unmeasured: the split's own factor stands

    def printed(v: float) -> float:
        return round(v) if abs(v) >= 9.95 else round(v, 1)

    return printed(x) != printed(y)


def pooled_why(
    step: tuple[Mapping[str, Any], Mapping[str, Any]],
    name: str,
    entry: Mapping[str, Any],
) -> str:
    """Why a stall group's part is not a named cause (:data:`WHY`), or ``""``.

    ``step``: the two launches, before and after.

    ``entry``: its grouped term and reasons (:func:`nsightflow.diagnosis.steps`);
    factors without stall reasons (occupancy, counts, clock) have counters of their
    own and are never pooled.
    """
    before, after = step
    reasons = tuple(entry.get("reasons") or ())
    if not reasons or reasons == ("idle",):
        return ""
    if name in NO_COUNTER:
        return WHY[0]
    if name in NO_WORK:
        return WHY[1]
    _, metric, x, y = detail(before, after, name, reasons)
    if "stalled_" in metric and not moved(x, y):
        return WHY[2]
    column = OWN_COUNTER.get(name)
    if column is not None:
        c0, c1 = num(before, column), num(after, column)
        if not (ok(c0) and ok(c1)) or abs(c1 - c0) < MOVED * max(abs(c0), abs(c1)):
            return WHY[3]
        if (c1 - c0) * float(entry["term"]) <= 0:  # a saving with more of it
            return WHY[3]
    return ""


def pool(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    grouped: dict[str, dict[str, Any]],
) -> dict[str, dict[str, Any]]:
    """``grouped`` with the parts that moved no metric of their own in one entry.

    The entry :data:`OTHER_STALLS` holds their summed term (so the terms still sum
    to the step's log change), their reasons and, under ``names``, each pooled
    group's name by the reason it was pooled (:data:`WHY`).
    """
    out: dict[str, dict[str, Any]] = {}
    names: dict[str, list[str]] = {}
    term, reasons = 0.0, ()
    # largest first, so that a sentence naming a few of them names the largest
    for name, entry in sorted(grouped.items(), key=lambda kv: -abs(kv[1]["term"])):
        if name == "occupancy" and not occupancy_moved(before, after):
            continue  # no line of its own: its part stays with the other factors
        why = pooled_why((before, after), name, entry)
        if not why:
            out[name] = entry
            continue
        names.setdefault(why, []).append(name)
        term += float(entry["term"])
        reasons += tuple(entry["reasons"])
    if names:
        out[OTHER_STALLS] = {
            "term": term,
            "reasons": reasons,
            col.EVIDENCE: None,
            "names": names,
        }
    return out


def named_first(
    ranked: list[tuple[str, dict[str, Any]]],
    sign: float,
    listed: Callable[[float], bool],
) -> list[tuple[str, dict[str, Any]]]:
    """``ranked`` (by the step's way) with a named cause first where one moved it so.

    The pooled part is the primary only where no named factor worth a line of its
    own (``listed``, by its term) moved the time the step's way: it is no
    mechanism, and the Why names one where the counters do. SGEMM ``v8``'s
    load/store queue, 0.3 -> 0.0 cycles per request, saved 1.56 of its 161 us.
    """
    if not ranked or ranked[0][0] != OTHER_STALLS:
        return ranked
    for i, (_, entry) in enumerate(ranked[1:], start=1):
        term = float(entry["term"])
        if sign * term > 0 and listed(term):
            return [ranked[i], *ranked[:i], *ranked[i + 1 :]]
    return ranked


def named_lead(parts: list[Finding], least: float) -> list[Finding]:
    """Parts ranked by their share of the change, a named one first where one is.

    Where the first is the pooled stalls, the first named part with at least
    ``least`` of the change leads instead (:func:`named_first` for the launches of
    a run: reduction ``v1``'s main kernel, its instruction count 0.49 of 1.18 us).
    """
    if not parts or parts[0].rule != OTHER_STALLS:
        return parts
    for i, f in enumerate(parts[1:], start=1):
        if ok(f.share) and f.share >= least:
            return [parts[i], *parts[:i], *parts[i + 1 :]]
    return parts


def pooled_finding(
    entry: Mapping[str, Any], part: Mapping[str, Any], share: float
) -> Finding:
    """The record of the pooled stalls: their names by why, and their part."""
    names: Mapping[str, list[str]] = entry["names"]
    groups = [
        msg(f"pooled_{why}", names=[msg(f"mech_{n}") for n in names[why]])
        for why in WHY
        if why in names
    ]
    said = groups[0]
    for group in groups[1:]:  # "; " between groups that hold commas of their own
        said = msg("pooled_and", head=said, tail=group)
    return Finding(
        rule=OTHER_STALLS,
        params=msg(
            "cause_other_stalls",
            groups=said,
            part=part,
            pooled={why: list(names[why]) for why in WHY if why in names},
        ),
        metric="",
        share=share,
        evidence=", ".join(entry["reasons"]),
    )


def local_quantity(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[str, float, float]:
    """Local memory's own quantity: local load + store sectors, before and after.

    The waits it cost are its part (``long_scoreboard`` per global request in SGEMM
    ``v4 -> v5``, where local loads are no global requests); the sentence quotes the
    traffic that went, 134.7 M -> 0 local sectors.
    """
    x, y = num(before, "local_sectors"), num(after, "local_sectors")
    return LOCAL_METRIC, x if ok(x) else math.nan, y if ok(y) else math.nan
