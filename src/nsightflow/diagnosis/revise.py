"""A step's primary checked against what else the same step shows (pure).

:func:`nsightflow.diagnosis.steps.step_causes` ranks the factors of ncu's time change.
Two things the factors cannot see, or see only under another name, take the
primary here when their own numbers account for the change:

- *a launch removed or added* (:func:`launch_change`): a multi-kernel variant's run
  lost (gained) a launch whose ncu time is at least :data:`LAUNCH_SHARE` of the
  step's gain (loss); reduction's ``v4_vec4_atomic`` drops ``reduce_finish``, 2.94 of
  ``v3_vec4``'s 21.57 us;
- *work moved to another pipe* (:func:`pipe_work_change`): FP64 or special-function
  (XU) instructions appeared (or went) as at least :data:`WORK_SHARE` of the issued
  warp instructions, from at most :data:`NO_WORK`; the factors that work drives
  (instruction count, the pipe, the MIO queue, dependencies, occupancy lost to the
  doubles' registers) are named after it;
- a stall without a counter of its own (dispatch stalls) is named by no other
  mechanism either, even where the step also removed a measured one (narrow loads,
  bank conflicts): nothing measures which of the freed cycles the removed mechanism
  caused. :mod:`nsightflow.diagnosis.credit` pools its part with the other stall
  reasons that moved no metric of their own (SGEMM's float4 step: dispatch stalls
  1.0 -> 0.5 cycles per instruction beside conflict replays 38% -> 5%, which are
  named with their own part, 165 of the 553 us saved).
"""

import math
from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.account import ncu_part
from nsightflow.diagnosis.factors import COUNT
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.pipes import MOVABLE, pipe_count
from nsightflow.diagnosis.record import Finding, msg

LAUNCH_SHARE = 0.5  # a removed launch's time / the step's gain that makes it primary
WORK_SHARE = 0.05  # a pipe's warp instructions / issued ones that are its work
NO_WORK = 0.01  # ... and at most this on the other side
# factors FP64 work drives: more instructions, its pipe, its latency, its registers
FP64_FACTORS = (COUNT, "fp64_pipe", "math_pipe_other", "dependency", "occupancy")


def _kernels(
    launches: Mapping[str, Any], row: Mapping[str, Any], kernel: str
) -> list[tuple[str, float]]:
    """The (kernel, ncu us) of each launch of a run; one launch: the whole run."""
    runs = launches.get(str(row.get(col.VARIANT)), {}).get(str(int(row[col.SIZE])))
    if not runs:
        return [(kernel, num(row, "ncu_time_us"))]
    return [(str(r[col.KERNEL]), float(r["time_us"])) for r in runs]


def launch_change(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    launches: Mapping[str, Any],
    kernels: tuple[str, str],
) -> Finding | None:
    """A launch a step removed (or added) that accounts for its time change, or None.

    The first launch of each run is its main kernel and is matched with the other
    run's; any other launch whose kernel the other run lacks is removed (added).
    """
    a = _kernels(launches, before, kernels[0])
    b = _kernels(launches, after, kernels[1])
    t0, t1 = num(before, "ncu_time_us"), num(after, "ncu_time_us")
    if len(a) == len(b) or not (ok(t0) and ok(t1)) or t0 == t1:
        return None
    gone = [k for k in a[1:] if k[0] not in {n for n, _ in b}]
    new = [k for k in b[1:] if k[0] not in {n for n, _ in a}]
    moved = -sum(us for _, us in gone) + sum(us for _, us in new)
    share = moved / (t1 - t0)
    if share < LAUNCH_SHARE or not (gone or new):
        return None
    rule = "launch_removed" if gone else "launch_added"
    names = ", ".join(f"`{n}`" for n, _ in (gone or new))
    return Finding(
        rule,
        params=msg(
            "cause_launch",
            label=msg(f"mech_{rule}"),
            names=names,
            # cupy's sum adds two launches to v4's one: they run, not "no longer"
            verb=msg("launch_verb_gone" if gone else "launch_verb_new"),
            us=abs(moved),
            t0=t0,
            t1=t1,
            n0=len(a),
            n1=len(b),
            part=ncu_part(before, after, share),
        ),
        metric="gpu__time_duration.sum per launch",
        before=float(len(a)),
        after=float(len(b)),
        threshold=LAUNCH_SHARE,
        share=share,
        evidence=names,
    )


# pipe -> (the finding's rule, the factors its work drives)
PIPE_WORK: dict[str, tuple[str, tuple[str, ...]]] = {
    "fp64": ("fp64_work", FP64_FACTORS),
    "xu": ("special_work", (COUNT, "xu_pipe", "mio_special", "math_pipe_other")),
}


def pipe_share(row: Mapping[str, Any], pipe: str) -> float:
    """A pipe's warp instructions per issued one (counter, else sampled SASS)."""
    inst = num(row, "inst_executed")
    return pipe_count(row, pipe) / inst if ok(inst) and inst > 0 else math.nan


def pipe_work_change(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    ranked: Sequence[Finding],
    total: float,
) -> list[Finding] | None:
    """The ranking with a pipe's new (or removed) work as its primary, or None.

    Where FP64 or special-function (XU) instructions appeared (went) as at least
    :data:`WORK_SHARE` of the issued instructions from at most :data:`NO_WORK`, and
    the factors that work drives moved the time the step's way; those factors are
    taken into the finding.
    """
    for pipe, (rule, factors) in PIPE_WORK.items():
        x, y = pipe_share(before, pipe), pipe_share(after, pipe)
        if not (ok(x) and ok(y)) or total == 0:
            continue
        added = x <= NO_WORK and y >= WORK_SHARE
        removed = y <= NO_WORK and x >= WORK_SHARE
        if not (added and total > 0) and not (removed and total < 0):
            continue
        taken = [f for f in ranked if f.rule in factors and ok(f.share) and f.share > 0]
        if taken:
            head = _pipe_work(before, after, pipe, rule, taken, total)
            return [head, *(f for f in ranked if f not in taken)]
    return None


def _pipe_work(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    pipe: str,
    rule: str,
    taken: list[Finding],
    total: float,
) -> Finding:
    """The finding of work moved to (or away from) ``pipe``, from the factors taken."""
    share = sum(f.share for f in taken)
    count = [pipe_count(r, pipe) / 1e6 for r in (before, after)]
    side = after if count[1] > count[0] else before
    counter, _, line_key = MOVABLE[pipe]
    return Finding(
        rule,
        params=msg(
            "cause_pipe_work",
            label=msg(f"mech_{rule}"),
            pipe=msg(f"pipe_{pipe}"),
            x=count[0],
            y=count[1],
            pct=100 * max(pipe_share(before, pipe), pipe_share(after, pipe)),
            r0=_zero(num(before, col.REGISTERS)),
            r1=_zero(num(after, col.REGISTERS)),
            factors=[msg(f"mech_{f.rule}") for f in taken],
            part=ncu_part(before, after, share),
        ),
        metric=counter,
        before=count[0] * 1e6,
        after=count[1] * 1e6,
        threshold=WORK_SHARE,
        share=share,
        evidence=", ".join(f.evidence for f in taken if f.evidence),
        line=int(_zero(num(side, line_key))),
    )


def _zero(value: float) -> float:
    return value if ok(value) else 0.0


def revise(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    ranked: list[Finding],
    total: float,
    launches: Mapping[str, Any],
    kernels: tuple[str, str],
) -> list[Finding]:
    """The step's ranking with the checks of the module docstring applied in order."""
    if not ranked or ranked[0].rule in ("step_unchanged", "step_not_in_counters"):
        return ranked
    launch = launch_change(before, after, launches, kernels)
    if launch is not None:
        # the factors compare runs of different launches: the removed launch's own
        # occupancy and idle time are in them, so they are not listed beside it
        return [launch]
    found = pipe_work_change(before, after, ranked, total)
    return found if found is not None else ranked
