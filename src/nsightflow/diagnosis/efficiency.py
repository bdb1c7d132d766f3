"""Efficiency causes: idle lanes, instruction overhead, the busy pipe and the MIO's source.

Stall reasons say where warps wait; they cannot say that the instructions a busy SM
issues do little work. Where the issue slots or a pipe limit the launch (at least
:data:`BUSY_PCT` busy), the time of the issue and math-pipe stall groups
(``selected`` + ``not_selected``, ``math_pipe_throttle``) is the time of issuing the
warp instructions, and it splits by what those instructions carry
(:func:`issue_split`):

- *idle lanes*: with ``L`` of 32 lanes active and not predicated off per warp
  instruction (``smsp__thread_inst_executed_pred_on_per_inst_executed.ratio``), the
  same thread work fills ``L/32`` of the warp instructions; ``1 - L/32`` of the issue
  time goes to idle lanes (below :data:`FULL_LANES` of 32 only);
- *instruction overhead*: of the full-lane part, the share of thread instructions
  that are not floating-point arithmetic (FFMA, FADD, FMUL, and the FP64 ones where
  counted) in a compute-bound kernel whose ideal work is FLOPs: address, index, loop,
  load and conversion instructions;
- the rest stays with its group: the arithmetic itself at full lanes.

The parts are shares of the same time, never counted twice. The busy pipe is the one
of ncu's per-pipe utilizations that is highest (:func:`busiest_pipe`), and the MIO
queue's waits are named by the MIO instructions the launch executes
(:func:`mio_source`): shared memory, shuffles or special functions, from the per-pipe
and per-class counters where recorded, else from the sampled SASS
(:mod:`nsightflow.analysis.mix`). Pure functions.
"""

from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg

BUSY_PCT = 60.0  # a pipe or issue slots this busy bind (ncu SpeedOfLight's line)
FULL_LANES = 0.75  # lanes per instruction / 32 below which idle lanes are a cause
LANES = 32.0
BOUND_GROUPS = ("issue", "math_pipe")  # the stall groups that are issue time
# ncu's per-pipe utilizations (% of peak): FMA from its own counter or derivation
PIPES: tuple[tuple[str, str], ...] = (
    ("fma", "fma_pct"),
    ("alu", "pipe_alu_pct"),
    ("fp64", "pipe_fp64_pct"),
    ("xu", "pipe_xu_pct"),
    ("lsu", "pipe_lsu_pct"),
    ("tensor", "pipe_tensor_pct"),
)
# the mechanism a busy math pipe names (math_pipe_throttle waits on it)
PIPE_MECHANISM = {
    "fma": "fp32_pipe",
    "fp64": "fp64_pipe",
    "xu": "xu_pipe",
    "alu": "alu_pipe",
    "tensor": "tensor_pipe",
}


def pipes(row: Mapping[str, Any]) -> dict[str, float]:
    """The measured pipe utilizations of a launch (% of peak), by pipe."""
    found = {name: num(row, key) for name, key in PIPES}
    return {name: pct for name, pct in found.items() if ok(pct)}


def busiest_pipe(
    row: Mapping[str, Any], among: tuple[str, ...] = ()
) -> tuple[str, float] | None:
    """The pipe with the highest utilization (optionally among some), or None."""
    found = pipes(row)
    if among:
        found = {k: v for k, v in found.items() if k in among}
    if not found:
        return None
    name = max(found, key=lambda k: found[k])
    return name, found[name]


def limiter_pct(row: Mapping[str, Any]) -> float:
    """How busy the launch's busiest issue resource is: issue slots or a pipe (%)."""
    issue = num(row, "issue_pct")
    top = busiest_pipe(row)
    values = [v for v in (issue, top[1] if top else float("nan")) if ok(v)]
    return max(values) if values else float("nan")


def active_lanes(row: Mapping[str, Any]) -> float:
    """Lanes per warp instruction that are active and not predicated off (NaN: n/a)."""
    for key in ("lanes_per_inst", "threads_per_inst"):
        value = num(row, key)
        if ok(value) and value > 0:
            return value
    return float("nan")


WORK_OPS = ("ffma", "fadd", "fmul", "dfma", "dadd", "dmul")  # the arithmetic counted


def work_share(row: Mapping[str, Any]) -> float:
    """Floating-point arithmetic per thread instruction (NaN: not measured).

    FFMA, FADD, FMUL and their FP64 twins where recorded.
    """
    counts = [v for k in WORK_OPS if ok(v := num(row, k))]
    inst, lanes = num(row, "inst_executed"), active_lanes(row)
    if not (counts and ok(inst) and inst > 0 and ok(lanes)):
        return float("nan")
    return min(sum(counts) / (inst * lanes), 1.0)


def issue_split(row: Mapping[str, Any]) -> dict[str, float]:
    """Shares of the issue time that go to idle lanes and to instruction overhead.

    Empty where neither the issue slots nor a pipe are :data:`BUSY_PCT` busy (the
    issue time is then no limit) or the lanes are not measured. ``idle_lanes`` where
    fewer than :data:`FULL_LANES` of the lanes work; ``instruction_overhead`` in a
    compute-bound launch whose ideal work is FLOPs and whose FP32 arithmetic is
    measured.
    """
    lanes = active_lanes(row)
    busy = limiter_pct(row)
    if not (ok(lanes) and ok(busy) and busy >= BUSY_PCT):
        return {}
    full = min(lanes / LANES, 1.0)
    out = {}
    if full < FULL_LANES:
        out["idle_lanes"] = 1.0 - full
    work = work_share(row)
    flops = num(row, "ideal_flops") if ok(num(row, "ideal_flops")) else 0.0
    if row.get(col.REGIME) == "compute" and ok(work) and work > 0 and flops > 0:
        out["instruction_overhead"] = full * (1.0 - work)
    return out


def idle_lanes_evidence(row: Mapping[str, Any]) -> dict[str, Any]:
    """The lanes, the limiter and what filling the lanes would leave of the issue."""
    threads = num(row, "threads_per_inst")
    lanes = active_lanes(row)
    # lanes predicated off outnumber inactive ones: the branch became predication
    predicated = ok(threads) and threads - lanes > LANES - threads
    return msg(
        "ev_idle_lanes",
        active=threads if ok(threads) else lanes,
        lanes=lanes,
        busy=limiter_pct(row),
        needed=100 * min(lanes / LANES, 1.0),
        how=msg("lanes_predicated" if predicated else "lanes_inactive"),
    )


def overhead_evidence(row: Mapping[str, Any]) -> dict[str, Any]:
    """What the issued thread instructions are: FP32 arithmetic against the rest."""
    work = work_share(row)
    return msg(
        "ev_instruction_overhead",
        work=100 * work,
        per=(1 - work) / work if work > 0 else 0.0,
        busy=limiter_pct(row),
    )


def pipe_words(row: Mapping[str, Any]) -> dict[str, Any]:
    """The busiest pipe in words with its utilization (or that none was measured)."""
    top = busiest_pipe(row)
    if top is None:
        return msg("pipe_unmeasured")
    return msg("pipe_busiest", pipe=msg(f"pipe_{top[0]}"), pct=top[1])


def name_math_pipe(row: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """``math_pipe_throttle`` named by the busiest math pipe (>= :data:`BUSY_PCT`)."""
    top = busiest_pipe(row, tuple(PIPE_MECHANISM))
    evidence = msg("ev_math_pipes", pipes=_pipe_list(row))
    if top is None or top[1] < BUSY_PCT:
        return "math_pipe_other", evidence
    return PIPE_MECHANISM[top[0]], evidence


def _pipe_list(row: Mapping[str, Any]) -> list[dict[str, Any]]:
    found = pipes(row)
    ordered = sorted(found, key=lambda k: -found[k])
    return [msg("pipe_pct", pipe=msg(f"pipe_{p}"), pct=found[p]) for p in ordered] or [
        msg("pipe_unmeasured")
    ]


def mio_shares(row: Mapping[str, Any]) -> dict[str, float]:
    """MIO-issued warp instructions by source (shares summing to 1), or empty.

    From the counters where recorded: shared-memory loads, stores and atomics
    (``smsp__sass_inst_executed_op_shared_*``), shuffles (inter-thread communication
    thread instructions over the active lanes) and the XU pipe's warp instructions
    (special functions); else from the sampled SASS (``mix_shared``, ``mix_shuffle``,
    ``mix_mufu``).
    """
    shared = sum(
        v
        for k in ("shared_ld_inst", "shared_st_inst", "shared_atom_inst")
        if ok(v := num(row, k))
    )
    shuffle = num(row, "shuffle_thread_inst") / max(active_lanes(row), 1.0)
    special = num(row, "inst_pipe_xu")
    counts = {"shared": shared, "shuffle": shuffle, "mufu": special}
    if not (ok(shuffle) and ok(special)):
        counts = {k: num(row, f"mix_{k}") for k in counts}
    counts = {k: v for k, v in counts.items() if ok(v) and v > 0}
    total = sum(counts.values())
    return {k: v / total for k, v in counts.items()} if total > 0 else {}


MIO_MECHANISM = {
    "shared": "shared_pipe",
    "shuffle": "mio_shuffle",
    "mufu": "mio_special",
}


def mio_measured(row: Mapping[str, Any]) -> bool:
    """Whether shuffles and special functions were counted (counters or samples)."""
    counters = ("shuffle_thread_inst", "inst_pipe_xu")
    sampled = ("mix_shuffle", "mix_mufu")
    return all(ok(num(row, k)) for k in counters) or all(
        ok(num(row, k)) for k in sampled
    )


def mio_source(row: Mapping[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The MIO wait named by its largest source, where that is not shared memory.

    None where shared memory is the largest source or nothing is measured (the
    shared-memory rules decide); ``mio_other`` where the launch executes no MIO
    instruction of a known class at all.
    """
    shares = mio_shares(row)
    if not shares:
        return None
    top = max(shares, key=lambda k: shares[k])
    if top == "shared":
        return None
    listed = [
        msg("mio_part", what=msg(f"mio_{k}"), pct=100 * v)
        for k, v in sorted(shares.items(), key=lambda kv: -kv[1])
    ]
    return MIO_MECHANISM[top], msg("ev_mio_source", parts=listed)
