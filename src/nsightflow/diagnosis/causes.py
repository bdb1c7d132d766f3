"""Causes: which mechanism a stall (or idle time) stands for, checked against its metrics.

Each stall reason belongs to a group (:data:`GROUPS`); the group is named as a specific
mechanism only where that mechanism's precondition holds on the launch's metrics, and
as the generic one otherwise:

- waits on global memory (``long_scoreboard``), the load/store queue (``lg_throttle``)
  and store drain (``drain``), named in :mod:`nsightflow.diagnosis.memory`, are
  *global atomics* when L2 atomics are at least half
  the global load sectors, *uncoalesced stores* / *loads* when the sectors exceed what
  the access width needs (:func:`loads_uncoalesced`, :func:`stores_uncoalesced`),
  *local memory* when local traffic or spills exist (for the queue: when local
  sectors are at least half of its sectors), *excess DRAM traffic* in a
  memory-bound launch that moves 1.5x the ideal bytes; else too few bytes in flight
  (memory-bound) or plain memory latency;
- the MIO stalls (``mio_throttle``, ``short_scoreboard``) are *bank conflicts* when
  replays are at least 20% of shared wavefronts, *shared atomics* when there are any;
- ``math_pipe_throttle`` is the *FP32 pipe* only when that pipe is busy (>= 60%);
- ``selected`` + ``not_selected`` is *issue-bound* only when the issue slots are busy;
- a launch's latency waits are *low occupancy* where its theoretical occupancy is at
  most 25% and ncu names the resource capping it (:func:`low_occupancy`);
- idle SM time is a grid smaller than the GPU (< 1 wave per SM), a tail effect (a
  few waves with a small last one) or, with many waves, idle SMs without a tail claim.

A step's change of a stall group is named the same way on the launch where the group
is larger, except that a coalescing mechanism is named only where that launch's
accesses use less of each sector than the other's (:func:`name_change`).

A value ncu reports as 0 or n/a for a ratio (sectors per request, bytes per sector,
conflict share) never satisfies a precondition. Pure functions.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nsightflow.diagnosis.advice import fix_key
from nsightflow.diagnosis.efficiency import (
    BOUND_GROUPS,
    BUSY_PCT,
    idle_lanes_evidence,
    issue_split,
    mio_measured,
    mio_source,
    name_math_pipe,
    overhead_evidence,
    pipe_words,
    work_share,
)
from nsightflow.diagnosis.memory import (
    BOTH,
    LATENCY_WAITS,
    loads_uncoalesced,
    low_occupancy,
    measured_ratio,
    memory_wait,
    or_zero,
    stores_uncoalesced,
)
from nsightflow.diagnosis.model import num, ok, time_split
from nsightflow.diagnosis.record import Finding, msg

GROUPS: dict[str, tuple[str, ...]] = {
    "memory_wait": ("long_scoreboard",),
    "lsu_queue": ("lg_throttle",),
    "store_drain": ("drain",),
    "shared_pipe": ("mio_throttle", "short_scoreboard"),
    "barrier": ("barrier",),
    "math_pipe": ("math_pipe_throttle",),
    "dependency": ("wait",),
    "membar": ("membar",),
    "frontend": ("no_instruction", "branch_resolving", "imc_miss"),
    "dispatch": ("dispatch_stall",),
    "issue": ("selected", "not_selected"),
    "other": ("tex_throttle", "sleeping", "misc"),
    "idle": ("idle",),
}
CONFLICT_SHARE = 0.2  # conflict replays / shared wavefronts that make them a cause
FEW_WAVES = 4.0  # at most this many waves per SM can leave a tail
SMALL_LAST_WAVE = 0.5  # a last wave at most this full is a tail
MIN_SHARE = 0.05  # a cause below this share of the time is not listed
FEW_SHARED = 0.05  # shared loads+stores per issued instruction below which MIO is other


def _shared(row: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    share = measured_ratio(row, "smem_conflict_share")
    if ok(share) and share >= CONFLICT_SHARE:
        return "bank_conflicts", msg(
            "ev_bank_conflicts",
            share=100 * share,
            ld=or_zero(num(row, "smem_conflicts_ld")),
            st=or_zero(num(row, "smem_conflicts_st")),
        )
    atoms = num(row, "shared_atom_inst")
    if ok(atoms) and atoms > 0:
        return "shared_atomics", msg(
            "ev_shared_atomics",
            atoms=atoms,
            conflicts=or_zero(num(row, "smem_conflicts_atom")),
        )
    named = mio_source(row)
    if named is not None:  # shuffles or special functions fill the MIO queue
        return named
    shared = num(row, "shared_ld_inst") + num(row, "shared_st_inst")
    inst = num(row, "inst_executed")
    per = shared / inst if ok(shared) and ok(inst) and inst > 0 else 0.0
    if ok(shared) and per < FEW_SHARED:
        known = "ev_mio_none" if mio_measured(row) else "ev_mio_other"
        return "mio_other", msg(known, per=per)
    return "shared_pipe", msg("ev_shared_pipe", per=per)


def _pipe(row: Mapping[str, Any], group: str) -> tuple[str, dict[str, Any]]:
    if group == "math_pipe":
        return name_math_pipe(row)
    issue = num(row, "issue_pct")
    work = work_share(row)
    evidence = msg(
        "ev_issue",
        issue=or_zero(issue),
        pipe=pipe_words(row),
        work=msg("work_share", pct=100 * work) if ok(work) else msg("work_unmeasured"),
    )
    busy = ok(issue) and issue >= BUSY_PCT
    return ("issue_bound" if busy else "issue"), evidence


def _idle(row: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    waves = measured_ratio(row, "waves_per_sm")
    if not ok(waves):
        return "idle_sms", msg("ev_idle_unknown")
    blocks, sms = num(row, "grid_blocks"), num(row, "sm_count")
    if waves < 1 and ok(blocks) and ok(sms) and blocks < sms:
        return "grid_too_small", msg("ev_grid_too_small", waves=waves, blocks=blocks)
    if waves < 1:  # every SM has blocks, all resident at once: they finish unevenly
        return "idle_sms", msg("ev_one_wave", waves=waves, blocks=or_zero(blocks))
    last = waves - math.floor(waves)
    if waves <= FEW_WAVES and 0 < last <= SMALL_LAST_WAVE:
        return "tail_effect", msg("ev_tail", waves=waves, last=100 * last)
    return "idle_sms", msg("ev_idle", waves=waves)


def name_group(
    row: Mapping[str, Any], group: str, skip: frozenset[str] = frozenset()
) -> tuple[str, dict[str, Any]]:
    """The mechanism a stall group stands for on this launch, with its evidence.

    ``skip``: global-memory mechanisms not to name (their precondition is passed over).
    """
    if group in ("memory_wait", "lsu_queue", "store_drain"):
        return memory_wait(row, group, skip)
    if group == "shared_pipe":
        return _shared(row)
    if group in ("math_pipe", "issue"):
        return _pipe(row, group)
    if group == "idle":
        return _idle(row)
    return group, msg(f"ev_{group}")


COALESCING_MOVED = 0.1  # relative change of sector use that counts as a change


def name_change(
    row: Mapping[str, Any], other: Mapping[str, Any], group: str
) -> tuple[str, dict[str, Any]]:
    """The mechanism a stall group's change between two launches stands for.

    Named on ``row``, the launch where the group is larger, as :func:`name_group` does,
    except that uncoalesced loads (stores) are named only where ``row``'s accesses use
    less of each sector than ``other``'s: a step whose per-instruction wait changed
    while the coalescing stayed as it was is not a coalescing change.
    """
    skip: frozenset[str] = frozenset()
    while True:
        name, evidence = name_group(row, group, skip)
        if name not in (*COALESCING, BOTH) or coalescing_worse(row, other, name):
            return name, evidence
        skip |= {name}


# The test of each coalescing mechanism and the counters that compare two launches,
# first that both have decides: (counter, True where a lower value wastes more).
COALESCING: dict[str, tuple[Any, tuple[tuple[str, bool], ...]]] = {
    "uncoalesced_loads": (
        loads_uncoalesced,
        (("ld_bytes_per_sector", True), ("sectors_per_request", False)),
    ),
    "uncoalesced_stores": (
        stores_uncoalesced,
        (
            ("st_bytes_per_sector", True),
            ("st_sectors_per_request", False),
            ("st_sectors_per_written_sector", False),
        ),
    ),
}


def coalescing_worse(
    row: Mapping[str, Any], other: Mapping[str, Any], name: str
) -> bool:
    """``row``'s loads (stores) waste more of their sectors than ``other``'s.

    True where ``other`` passes the same test as coalesced on a measured counter, or
    the first counter both launches have differs by a tenth the wasteful way; False
    where they cannot be compared (the counters missing on a side).
    """
    if name == BOTH:  # either side's accesses wasting more is a coalescing change
        return any(coalescing_worse(row, other, n) for n in COALESCING)
    test, keys = COALESCING[name]
    if test(row) is None:
        return False
    if test(other) is None:
        return any(ok(measured_ratio(other, k)) for k, _ in keys)
    for key, lower_wastes in keys:
        x, y = measured_ratio(row, key), measured_ratio(other, key)
        if ok(x) and ok(y):
            if lower_wastes:
                return x < (1 - COALESCING_MOVED) * y
            return x > (1 + COALESCING_MOVED) * y
    return False


@dataclass(frozen=True)
class Cause:
    """One mechanism's part of a launch's time."""

    mechanism: str
    time_us: float
    share: float  # of ncu's time
    reasons: tuple[str, ...]
    evidence: dict[str, Any]


def causes(row: Mapping[str, Any]) -> list[Cause]:
    """The mechanisms a profiled launch's time goes to, largest first (>= 5% each).

    A latency wait (:data:`LATENCY_WAITS`) of a launch with low occupancy
    (:func:`low_occupancy`) is named ``low_occupancy``. Where the issue slots or a
    pipe limit the launch, the issue and math-pipe groups' time is split into idle
    lanes, instruction overhead and the rest
    (:func:`nsightflow.diagnosis.efficiency.issue_split`). Empty when the launch
    lacks the counts the split needs.
    """
    split = time_split(row)
    if split is None:
        return []
    total = num(row, "ncu_time_us")
    times = {g: sum(split.get(r, 0.0) for r in rs) for g, rs in GROUPS.items()}
    found: dict[str, Cause] = {}
    for name, us, reasons, evidence in _efficiency(row, times):
        found[name] = Cause(name, us, us / total, reasons, evidence)
    for group, reasons in GROUPS.items():
        us = times[group]
        if us <= 0:
            continue
        name, evidence = name_group(row, group)
        if name in LATENCY_WAITS:
            few = low_occupancy(row)
            name, evidence = ("low_occupancy", few) if few else (name, evidence)
        if name in found:
            old = found[name]
            us += old.time_us
            reasons = old.reasons + reasons
            evidence = old.evidence
        found[name] = Cause(name, us, us / total, tuple(reasons), evidence)
    ranked = sorted(found.values(), key=lambda c: (_is_work(c, found), -c.time_us))
    return [c for c in ranked if c.share >= MIN_SHARE]


def _is_work(cause: Cause, found: Mapping[str, Cause]) -> bool:
    """The issue time left after idle lanes and overhead: the FP32 work itself.

    It ranks after them: no remedy removes the work, while full lanes or fewer
    overhead instructions remove their part (a divergent FMA kernel's idle half is
    named before the half that does the FMAs).
    """
    efficient = any(name in found for name in EFFICIENCY_METRIC)
    if not efficient or cause.mechanism in EFFICIENCY_METRIC:
        return False
    return set(cause.reasons) <= {r for g in BOUND_GROUPS for r in GROUPS[g]}


def _efficiency(
    row: Mapping[str, Any], times: dict[str, float]
) -> list[tuple[str, float, tuple[str, ...], dict[str, Any]]]:
    """Idle lanes and instruction overhead as parts of the issue time.

    Their microseconds are taken out of the issue and math-pipe groups in ``times``
    (changed in place), so that no time is counted twice.
    """
    shares = issue_split(row)
    bound = sum(times[g] for g in BOUND_GROUPS)
    if not shares or bound <= 0:
        return []
    for group in BOUND_GROUPS:
        times[group] *= 1.0 - sum(shares.values())
    reasons = tuple(r for g in BOUND_GROUPS for r in GROUPS[g])
    evidence = {
        "idle_lanes": idle_lanes_evidence,
        "instruction_overhead": overhead_evidence,
    }
    return [
        (name, share * bound, reasons, evidence[name](row))
        for name, share in shares.items()
    ]


# the evidence of causes read launch by launch (nsightflow.diagnosis.per_launch)
RUN_EVIDENCE = frozenset({"ev_in_main", "ev_later_launch"})


def of_run(found: Sequence[Cause]) -> bool:
    """The causes are a run's of several launches, read launch by launch.

    Their shares are of the run's time, not of one launch: reduction ``v0``'s
    ``reduce_finish`` is 25% of the run of two launches.
    """
    return any(
        isinstance(c.evidence, Mapping) and c.evidence.get("@") in RUN_EVIDENCE
        for c in found
    )


def cause_finding(row: Mapping[str, Any], cause: Cause, run: bool = False) -> Finding:
    """The record of one cause of a launch's time (``run``: of a run's, its share)."""
    return Finding(
        rule=cause.mechanism,
        params=msg(
            "cause_state_run" if run else "cause_state",
            label=msg(f"mech_{cause.mechanism}"),
            share=100 * cause.share,
            us=cause.time_us,
            total=num(row, "ncu_time_us"),
            reasons=_reasons(cause.mechanism, cause.reasons),
            evidence=cause.evidence,
            fix=msg(fix_key(row, cause.mechanism)),
        ),
        metric=_metric(cause),
        value=cause.time_us,
        share=cause.share,
        evidence=", ".join(cause.reasons),
    )


def _reasons(mechanism: str, reasons: tuple[str, ...]) -> dict[str, Any]:
    if reasons == ("idle",):
        return msg("reasons_idle")
    if reasons == ("launch",):
        return msg("reasons_launch")
    shown = " + ".join(f"`{r}`" for r in reasons)
    if mechanism in EFFICIENCY_METRIC:
        return msg("reasons_issue_part", reasons=shown)
    return msg("reasons_stalls", reasons=shown)


EFFICIENCY_METRIC = {
    "idle_lanes": "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
    "instruction_overhead": "smsp__sass_thread_inst_executed_op_{ffma,fadd,fmul}"
    "_pred_on.sum / (smsp__inst_executed.sum x lanes)",
}


def _metric(cause: Cause) -> str:
    if cause.reasons == ("launch",):
        return "gpu__time_duration.sum of one launch"
    if cause.reasons == ("idle",):
        return "gpu__time_duration.sum - active time"
    if cause.mechanism in EFFICIENCY_METRIC:
        return EFFICIENCY_METRIC[cause.mechanism]
    return " + ".join(
        f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio"
        for r in cause.reasons
    )
