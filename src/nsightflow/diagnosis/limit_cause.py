"""The cause of a launch's time that its limiter is about (pure).

What limits a launch now (:mod:`nsightflow.diagnosis.limiter`: the unit closest to
its peak) and its largest removable cost (:mod:`nsightflow.diagnosis.causes`) can
differ: SGEMM ``v7`` at n = 4096 issues at 82% of the issue slots' peak, 68% of its
launch the FP32 work's own issue, while its largest removable cost is its dispatch
stalls (9%). Advice follows the limiter: the cause whose stall reasons are the
limiting unit's, largest first, said with the unit's own metric.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts.columns import KERNEL
from nsightflow.diagnosis.causes import Cause
from nsightflow.diagnosis.limiter import NO_UNIT
from nsightflow.diagnosis.record import Finding, msg

ISSUE = frozenset({"selected", "not_selected"})
MEMORY = frozenset({"long_scoreboard", "lg_throttle", "drain"})
SHARED = frozenset({"mio_throttle", "short_scoreboard"})
# the stall reasons a limiting unit's time shows as, by the limiter's unit
UNIT_REASONS: Mapping[str, frozenset[str]] = {
    "issue": ISSUE,
    "fma": ISSUE | {"math_pipe_throttle"},
    "alu": ISSUE | {"math_pipe_throttle"},
    "fp64": ISSUE | {"math_pipe_throttle"},
    "xu": SHARED | {"math_pipe_throttle"},
    "tensor": ISSUE | {"math_pipe_throttle"},
    "lsu": SHARED | {"lg_throttle"},
    "l1": SHARED | MEMORY,
    "l2": MEMORY,
    "dram": MEMORY,
    "l2_slice": MEMORY,
}


# causes whose remedy raises one unit's throughput only: more bytes in flight cover
# the DRAM's latency, and do not relieve a busy L1/shared pipe (reduction ``v0``'s
# L1/shared 80% is its shared-memory tree, which float4 global loads do not touch)
FITS: Mapping[str, frozenset[str]] = {
    "bytes_in_flight": frozenset({"dram"}),
    "memory_latency": frozenset({"dram"}),
}
# units every DRAM byte passes through: a stream's L2 is busy with its own DRAM
# traffic, so a DRAM cause is advised there, but not said against the L2 (vecadd
# ``v1``'s L2 80%: more bytes in flight gave 1.14x)
THROUGH = frozenset({"l2"})


# causes whose name states their own basis ("DRAM bandwidth (80% of the copy
# bandwidth or more)"): said after a unit's other metric ("DRAM 76% of its peak",
# "L2 92%"), the item read two bases for one limit
OWN_BASIS = frozenset({"dram_bandwidth"})


def said_against(mechanism: str, unit: str) -> bool:
    """Whether the remedy is said after the limiting unit and its metric."""
    return bool(unit) and fits(mechanism, unit) and mechanism not in OWN_BASIS


def fits(mechanism: str, unit: str) -> bool:
    """Whether a cause's remedy relieves the limiting ``unit`` ('': none named)."""
    return not unit or unit in FITS.get(mechanism, frozenset({unit}))


def advisable(mechanism: str, unit: str) -> bool:
    """Whether a cause may be advised under ``unit``: it fits, or the unit carries it."""
    return fits(mechanism, unit) or (mechanism in FITS and unit in THROUGH)


def unit_of(now: Finding | None) -> str:
    """The limiting unit's kind (``issue``, ``l1``, ...), '' where none is near its peak."""
    if now is None:
        return ""
    rule = now.evidence if now.rule == "limit_launch" else now.rule
    if not rule or rule in NO_UNIT:
        return ""
    return rule.removeprefix("limit_")


def limit_cause(found: Sequence[Cause], now: Finding | None) -> Cause | None:
    """The largest cause whose stall reasons are the limiting unit's (None: none)."""
    unit = unit_of(now)
    reasons = UNIT_REASONS.get(unit, frozenset())
    mine = [
        c for c in found if reasons & set(c.reasons) and advisable(c.mechanism, unit)
    ]
    return max(mine, key=lambda c: c.time_us) if mine else None


def at_limit(fix: Mapping[str, Any], now: Finding) -> dict[str, Any]:
    """The remedy, after the limiting unit with its own metric.

    A run's limiter is its longest launch's, said with that launch's kernel and the
    same share the brief's *limits it now* prints (reduction ``v0``: L1/shared 80% in
    ``reduce_v0``, where the run's average over its two launches reads 61%).
    """
    if now.rule == "limit_launch":
        return msg(
            "advice_fix_limit_launch",
            cell=now.params["cell"],
            kernel=now.params[KERNEL],
            metric=now.metric,
            fix=dict(fix),
        )
    return msg(
        "advice_fix_limit",
        cell=msg(f"cell_{now.rule}", **now.params),
        metric=now.metric,
        fix=dict(fix),
    )
