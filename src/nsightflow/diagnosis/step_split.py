"""Which factors changed a step's time: the exact split of two launches' accounting.

A step compares two profiled launches of one size (:mod:`nsightflow.diagnosis.model`
holds each launch's factors and the split of its own time); this module splits the
change between them, and is kept apart from the one-launch accounting because only
the step rules (:mod:`nsightflow.diagnosis.steps`, :mod:`nsightflow.diagnosis.factors`)
read it.

- A step's time change splits exactly into factors (:func:`step_terms`): the time
  is the product of ``Y``, the warp-cycles per resident warp (the sum over reasons
  of ``Y_r = c_r x I / W``; ``selected`` is the issue cycle of each instruction),
  the time of an SM cycle and the idle factor; the three are split in order
  (:func:`ordered_rates`), and ``Y``'s part is shared by the reasons by their own
  change ``Y1_r - Y0_r``. Occupancy is a factor only of the waits other warps hide
  (:data:`HIDDEN`); a wait for a shared unit grows with the warps queueing for it.
  The waits on global memory
  (:data:`~nsightflow.diagnosis.model.NS_FIXED`) last a time, not a number of SM
  cycles: the second launch's are counted at the first one's clock
  (:func:`~nsightflow.diagnosis.model.at_clock_of`), so the clock term covers only the cycle-bound part of the
  time (a memory-bound step profiled at a 6% higher clock is not read as 6% faster
  through the clock).
- Each reason's warp-cycle change is then split into an *instruction-count* part and
  a *per-instruction* part (:func:`count_split`): the symmetric (Shapley) split
  ``dA = dI x mean(c) + dc x mean(I)``, with ``I`` the issued instructions and ``c``
  the reason's warp-cycles per instruction, except where the two parts point
  opposite ways: then the larger takes the reason's whole change and the other gets
  none. The count parts of all reasons form one factor, ``instructions``. A step
  that adds cheap instructions at the same stalled warp-cycles (each stall per
  instruction diluted) shows no stall change at all, only the added issue cycles:
  the dilution is never read as less waiting. Where the step's global loads went,
  requests and sectors both halved or less (:func:`loads_moved`), the waits counted
  per global request (:data:`WAITED_ON`) keep their whole change, their requests'
  count included: the data now comes from elsewhere (SGEMM's 32x32 tiles), and the
  memory waits fell as the step meant, not as a count of issued instructions.

Pure functions over the analysis rows; a row holds its stall reasons as ``stall_<reason>``.
"""

import math
from collections.abc import Mapping
from typing import Any

from nsightflow.diagnosis.model import STALLS, Launch, at_clock_of, launch, num, ok

# Waits a warp spends whatever the other resident warps do, which those warps overlap
# (latency hiding): more resident warps shorten their part of the SMs' time. The rest
# (mio_throttle, short_scoreboard, lg_throttle, tex_throttle, math_pipe_throttle,
# dispatch_stall, not_selected) wait for a unit the warps share, and grow with the
# warps that queue for it.
HIDDEN: frozenset[str] = frozenset(
    {
        "long_scoreboard",
        "wait",
        "barrier",
        "branch_resolving",
        "no_instruction",
        "membar",
        "drain",
        "sleeping",
        "imc_miss",
        "misc",
        "selected",
    }
)


WARP_CYCLES = "warp_cycles"  # the factor Y of a launch's busy time (step_terms)


def step_terms(before: Mapping[str, Any], after: Mapping[str, Any]) -> dict[str, float]:
    """The exact split of ``ln(t_after / t_before)`` (ncu's times) into factors.

    Keys: ``occupancy``, ``clock``, ``idle``, ``instructions`` (the instruction-count
    parts of all reasons) and one per stall reason with ``selected`` (the issue cycles
    and what the reasons do not account for), each the per-instruction part of that
    reason's change. Each term times ``L(t0, t1)``, the log mean of the two times, is
    the factor's part of ``t1 - t0`` in microseconds, and the terms sum to
    ``ln(t1/t0)``. Empty when a factor is missing.

    A launch's time is a product, ``t = Y x g x D``: ``Y`` the warp-cycles per
    resident warp (the sum over reasons of ``Y_r = c_r x I / W``), ``g`` the time of
    a cycle on the GPU's SMs, ``D`` ncu's time over the SMs' busy time (idle SMs: a
    grid smaller than the GPU, a tail, the ramp). The three are split in order
    (:func:`ordered_rates`: the savings on the first launch's time, the additions on
    what the savings left), so that no factor saves more than the first launch took
    or adds more than the second takes; ``Y``'s part is then shared by the reasons
    in proportion to their own change of it, ``Y1_r - Y0_r``, which is additive: a
    reason that went saves its time in the first launch, whatever the others did.
    Idle SMs are a share: the 68 SMs a 64-block grid leaves idle wait as long as the
    other 64 work, so at the same share a shorter run is the busy SMs' saving.

    Occupancy is a factor only of the waits other warps hide (:data:`HIDDEN`,
    :func:`_reason_split`).
    """
    a, measured = launch(before), launch(after)
    if a is None or measured is None:
        return {}
    b = at_clock_of(measured, a.clock_hz)  # the memory waits in a's cycles
    y0 = a.cpi * a.instructions / a.warps
    y1 = b.cpi * b.instructions / b.warps
    t0, t1 = a.time_us, measured.time_us
    factors = {
        WARP_CYCLES: math.log(y1 / y0),
        # the clock sets the cycle-bound part of the time only (see at_clock_of)
        "clock": math.log(a.clock_hz / b.clock_hz) + math.log(measured.cpi / b.cpi),
        "idle": math.log(measured.idle_factor / a.idle_factor)
        + math.log(a.sms / b.sms),
    }
    rates = ordered_rates(factors, t0, t1)
    parts = _cycle_parts(before, after, (a, b))
    # the issue cycles also absorb the rounding, so that the parts sum to Y1 - Y0
    parts["selected"] += (y1 - y0) - sum(parts.values())
    per_cycle = rates[WARP_CYCLES] / _log_mean(y0, y1)  # us per unit of Y
    scale = _log_mean(t0, t1)
    terms = {k: v * per_cycle / scale for k, v in parts.items()}
    for k in ("clock", "idle"):
        terms[k] = factors[k] * rates[k] / scale
    return terms


def ordered_rates(terms: Mapping[str, float], t0: float, t1: float) -> dict[str, float]:
    """Microseconds per unit of each factor's log term: its part is ``term x rate``.

    The factors of a product ``t = prod_k x_k`` with ``ln(t1/t0) = sum_k term_k``, in
    order: the savings act on the first launch's ``t0``, down to ``t_s = t0 x
    exp(S)`` (``S`` the sum of the negative terms), the additions on what is left, up
    to ``t1``. Within each side the parts are the log-mean split of that side's own
    sub-step, proportional to the terms. So the parts sum to ``t1 - t0``, no saving
    exceeds ``t0`` and no addition exceeds ``t1``. (The log mean of the whole step,
    ``L(t0, t1)``, as one weight for all terms does not keep them within the runs:
    it read histogram's 128x step, 4,316 -> 33.7 us, ``L`` = 883 us, as idle SMs
    adding 171 us to the 33.7 us run.)
    """
    down = sum(v for v in terms.values() if v < 0)
    up = sum(v for v in terms.values() if v > 0)
    middle = t0 * math.exp(down)
    low = t0 * (math.expm1(down) / down if down else 1.0)  # (t_s - t0) / S
    high = (t1 - middle) / up if up else middle
    return {k: low if v < 0 else high for k, v in terms.items()}


def ordered_parts(terms: Mapping[str, float], t0: float, t1: float) -> dict[str, float]:
    """Each factor's part of ``t1 - t0`` (us) by :func:`ordered_rates`."""
    rates = ordered_rates(terms, t0, t1)
    return {k: v * rates[k] for k, v in terms.items()}


def _cycle_parts(
    before: Mapping[str, Any], after: Mapping[str, Any], runs: tuple[Launch, Launch]
) -> dict[str, float]:
    """The step's change of warp-cycles per resident warp, ``Y1 - Y0``, in parts.

    Keys: each stall reason and ``selected`` (its per-instruction part), then
    ``instructions`` and :data:`LOADS` (the count parts of the reasons counted per
    issued instruction and per global request) and ``occupancy``; :func:`step_terms`
    divides each by the log mean of the two launches' total ``Y``. ``runs``: the
    two launches, the second at the first one's clock (:func:`at_clock_of`).
    """
    a, b = runs
    rest_a = a.cpi - sum(a.stalls.values())  # selected: ~1 issue cycle per instruction
    rest_b = b.cpi - sum(b.stalls.values())
    parts: dict[str, float] = {}
    count = loads = occupancy = 0.0
    reused = loads_moved(before, after)
    for reason in (*STALLS, "selected"):
        c0, c1 = (
            (rest_a, rest_b)
            if reason == "selected"
            else (a.stalls[reason], b.stalls[reason])
        )
        requests = waited_on(before, after, reason)
        by_count, per_inst, hidden = _reason_split(
            runs, (c0, c1), requests, reason in HIDDEN
        )
        by_count, per_inst = _regrouped(reason, by_count, per_inst, requests, reused)
        if requests[0] and requests[1]:
            loads += by_count  # counted per global request (or sector), not per issue
        else:
            count += by_count
        occupancy += hidden
        parts[reason] = per_inst
    parts["instructions"] = count
    parts[LOADS] = loads
    parts["occupancy"] = occupancy
    return parts


def _regrouped(
    reason: str,
    by_count: float,
    per_inst: float,
    requests: tuple[float, float],
    reused: bool,
) -> tuple[float, float]:
    """A reason's count and per-request parts, each under the change that made it."""
    if requests[0] and requests[1] and reused:
        # the global loads went (their data now comes from shared memory or
        # registers): fewer of the wait's requests are its own change
        return 0.0, by_count + per_inst
    if reason in QUEUED and by_count * per_inst > 0:
        # a queue's wait per request moved with its requests: the count's
        return by_count + per_inst, 0.0
    return by_count, per_inst


def _reason_split(
    runs: tuple[Launch, Launch],
    cycles: tuple[float, float],
    counts: tuple[float, float],
    hidden: bool,
) -> tuple[float, float, float]:
    """One reason's change of warp-cycles per resident warp, ``Y1 - Y0``, in parts.

    Returns its (count, per-instruction, occupancy) parts.

    ``cycles``: its warp cycles per issued instruction on each side; ``counts``: the
    instructions it waits for (issued instructions where (0, 0)). A hidden wait's
    ``Y = Z / W`` gives occupancy ``Z_f (1/W1 - 1/W0)``, ``Z_f`` the warp-cycles of
    the side with fewer warps: what the warps it lacks cost that side, at most its own
    hidden waits (the log-mean weight ``L(Y0, Y1) ln(W0/W1)`` gave histogram's 128x
    step, 4,316 -> 33.7 us, an occupancy part of 78 us, more than the 33.7 us run it
    acted on). The rest, ``Y1 - Y0`` less the occupancy's, is split like ``Z`` between
    its count and per-instruction parts.
    """
    a, b = runs
    (c0, c1), (n0, n1) = cycles, counts
    if not (n0 and n1):
        n0, n1 = a.instructions, b.instructions
    z0, z1 = c0 * a.instructions, c1 * b.instructions
    y0, y1 = z0 / a.warps, z1 / b.warps
    if not hidden:  # cycles per resident warp and per instruction waited for
        by_count, per_inst = count_split(z0 / n0 / a.warps, z1 / n1 / b.warps, n0, n1)
        return by_count, per_inst, 0.0
    # what the warps cost the side with fewer of them: its warp-cycles at the
    # other's warps (bounded by its own hidden waits, whatever the step's ratio)
    fewer = z1 if b.warps < a.warps else z0
    occupancy = fewer * (1 / b.warps - 1 / a.warps) if min(y0, y1) > 0 else 0.0
    by_count, per_inst = count_split(z0 / n0, z1 / n1, n0, n1)
    # the rest has z's direction: scale z's split to it (0 where z did not move)
    moved = z1 - z0
    still = abs(moved) <= 1e-12 * max(abs(z0), abs(z1)) or moved == 0
    scale = 0.0 if still else (y1 - y0 - occupancy) / moved
    return by_count * scale, per_inst * scale, occupancy


# The instructions a stall reason waits for, where ncu counts them apart: a wait on
# global memory comes once per load request it waits for (SpMV's warp-per-row step:
# x18 instructions, x5.5 load requests), not once per issued instruction (vecadd's
# coarsening removed index arithmetic, not loads). Other reasons: issued instructions.
WAITED_ON: dict[str, tuple[str, ...]] = {
    "long_scoreboard": ("global_ld_requests",),
    "lg_throttle": ("global_ld_requests", "global_st_requests"),
}
# The factor of the count parts of the waits counted per global request (or sector):
# the loads they wait for, apart from the issued instructions' count.
LOADS = "loads"
# A wait for a load's data is counted per byte (global load sector) where the same
# bytes came in wider requests: this factor fewer requests or less, the sectors within
# SAME_BYTES. 16-byte loads bring 4x the bytes per request, so the wait per request
# grows by construction as the requests fall (Jacobi-2D v3 -> v5: 7.34 M -> 2.10 M
# requests for 33.5 M -> 34.6 M sectors, 101 -> 600 cycles per request, 22 -> 36 per
# sector). More, narrower requests stay counted per request: each pays the latency
# (SpMV's warp per row: x5.5 requests at about the same wait each), and per sector
# the wait would grow by construction instead. Where the bytes moved too (tiles) the
# requests stay the count. The load/store queue's wait stays per request: a request
# is its slot.
WIDTH_MOVED = 2.0
SAME_BYTES = (0.8, 1.25)
PER_BYTE: dict[str, tuple[str, ...]] = {"long_scoreboard": ("global_ld_sectors",)}


# Queues whose wait per request moves with the number of requests they hold: the
# load/store queue (``lg_throttle``) fills with the global requests it is counted
# per. Where its wait per request moved the same way as the requests, the emptier
# queue is the fewer requests' consequence and its change goes with their count.
QUEUED: tuple[str, ...] = ("lg_throttle",)
LOADS_MOVED = 2.0  # global load requests and sectors both moved at least this factor


def loads_moved(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether the step's global loads went (or came), apart from its instructions.

    The sectors the global loads read moved by a factor of 2 or more, and their
    requests by that factor against the issued instructions, the same way: the data
    now comes from elsewhere (shared memory, registers), not in fewer, wider
    requests (those read the same sectors) or with all instructions alike. SGEMM's
    32x32 tiles: 4,295 M -> 134 M requests (x0.031) against 11,842 M -> 6,664 M
    instructions (x0.56), 10,737 M -> 537 M sectors, so the waits on them
    (``long_scoreboard``, ``lg_throttle``) fell as the step meant, not as a count
    of issued instructions.
    """
    ratios = []
    for key in ("global_ld_requests", "global_ld_sectors", "inst_executed"):
        x, y = num(before, key), num(after, key)
        if not (ok(x) and ok(y) and x > 0 and y > 0):
            return False
        ratios.append(y / x)
    requests, sectors, instructions = ratios
    moved = (requests / instructions, sectors)
    return all(r <= 1 / LOADS_MOVED for r in moved) or all(
        r >= LOADS_MOVED for r in moved
    )


def waited_keys(
    before: Mapping[str, Any], after: Mapping[str, Any], reason: str
) -> tuple[str, ...]:
    """The columns counting what ``reason`` waits for: requests, or sectors (bytes).

    A load's wait is counted per sector (:data:`PER_BYTE`) where the same sectors
    (within :data:`SAME_BYTES`) came in :data:`WIDTH_MOVED` times fewer requests or
    less (wider loads): a wait per request then grows with the requests' width alone.
    Empty for a reason counted per issued instruction.
    """
    keys = WAITED_ON.get(reason, ())
    if reason not in PER_BYTE:
        return keys
    counts = [
        (num(row, "global_ld_requests"), num(row, "global_ld_sectors"))
        for row in (before, after)
    ]
    if not all(ok(v) and v > 0 for pair in counts for v in pair):
        return keys
    (r0, s0), (r1, s1) = counts
    low, high = SAME_BYTES
    if r1 / r0 <= 1 / WIDTH_MOVED and low <= s1 / s0 <= high:
        return PER_BYTE[reason]
    return keys


def waited_on(
    before: Mapping[str, Any], after: Mapping[str, Any], reason: str
) -> tuple[float, float]:
    """The counts of the instructions ``reason`` waits for, on both launches.

    (0, 0) where the reason has none of its own or a count is missing or 0 on a side.
    The counts are :func:`waited_keys`'.
    """
    keys = waited_keys(before, after, reason)
    # a count ncu did not record (stores in older recordings) adds nothing
    counts = [sum(v for k in keys if ok(v := num(row, k))) for row in (before, after)]
    if not keys or not all(ok(n) and n > 0 for n in counts):
        return 0.0, 0.0
    return counts[0], counts[1]


def count_split(c0: float, c1: float, i0: float, i1: float) -> tuple[float, float]:
    """A reason's warp-cycle change ``c1 i1 - c0 i0`` as (count part, per-instruction part).

    The symmetric split ``(i1 - i0)(c0 + c1)/2 + (c1 - c0)(i0 + i1)/2`` where both parts
    point the same way. Where they point opposite ways, the larger takes the whole
    change: twice the instructions at half the cycles each is no change of either (no
    dilution read as less waiting), and x18 instructions at a third of the cycles each
    is the instruction count, not the stall.
    """
    by_count = (i1 - i0) * (c0 + c1) / 2
    per_inst = (c1 - c0) * (i0 + i1) / 2
    if by_count * per_inst < 0:
        whole = by_count + per_inst
        return (whole, 0.0) if abs(by_count) >= abs(per_inst) else (0.0, whole)
    return by_count, per_inst


def _log_mean(x: float, y: float) -> float:
    """Logarithmic mean: ``(y - x) / ln(y / x)``, ``x`` when they are equal."""
    if abs(y - x) < 1e-12 * max(x, y):
        return x
    return (y - x) / math.log(y / x)


def alone(term: float) -> float:
    """The relative time change (%) one factor alone makes: ``exp(term) - 1``."""
    return 100 * math.expm1(term)
