"""Whether a step did what a suggestion's remedy asks for, read from its diff (pure).

A step is scored against a suggestion by what the next variant changed, not by the
label of its primary cause: reduction ``v2_shuffle``'s float4 suggestion (up to
1.19x) was carried out by ``v3_vec4`` (its SASS loads went ``LDG.E`` 32 -> 128 bits,
its load sectors per request 4 -> 16), whose time did not move (1.02x); scored by
its primary cause, "no change of ncu's launch time", the failed prediction was
"not among the suggestions" and never counted against the advice.

Each remedy is a change the compiler facts or the counters show (:data:`REMEDIES`):
wider loads, more loads in the SASS, more resident warps, fewer launches in the run,
fewer shared-memory instructions, fewer L2 atomics, more blocks, fewer DRAM bytes,
fewer local-memory sectors, fewer issued instructions. :func:`remedy_tried` returns
the first change of the suggestion's remedy the step made, as a message with its
before and after.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from nsightflow.diagnosis.factors import WIDER
from nsightflow.diagnosis.memory import measured_ratio
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg

__all__ = ["Side", "carried_out", "remedy_tried"]

MOVED = 1.5  # a counter that carries a remedy moved where it changed by this factor
WARPS_MOVED = 1.2  # achieved occupancy up by this factor: more resident warps
INST_MOVED = 1.1  # issued instructions down by this factor: fewer of them
# sectors a warp's 32 coalesced 4-byte loads fill: more per request needs wider lanes
LANE_SECTORS = 4.0


@dataclass(frozen=True)
class Side:
    """One variant of a step at one size: its analysis row, compiler facts, launches."""

    row: Mapping[str, Any]
    compiled: Mapping[str, Any]
    launches: int  # kernel launches in its run (1: one kernel)


Change = Callable[[Side, Side], dict[str, Any] | None]


def _fact(side: Side, key: str) -> float:
    value = side.compiled.get(key)
    return float(value) if isinstance(value, int | float) else float("nan")


def _rose(key: str, a: float, b: float, factor: float) -> dict[str, Any] | None:
    """The change ``a -> b`` as a message where it rose by ``factor`` (else None)."""
    if ok(a) and ok(b) and a > 0 and b >= factor * a:
        return msg(f"tried_{key}", a=a, b=b)
    return None


def _fell(key: str, a: float, b: float, factor: float) -> dict[str, Any] | None:
    """The change ``a -> b`` as a message where it fell by ``factor`` (else None)."""
    if ok(a) and ok(b) and a > 0 and a >= factor * max(b, 0.0):
        return msg(f"tried_{key}", a=a, b=b)
    return None


def wider(x: Side, y: Side) -> dict[str, Any] | None:
    """Wider global loads: the SASS's load width, else the sectors per request.

    Where the SASS of both sides is known its width decides. The sectors per request
    stand in only beyond :data:`LANE_SECTORS`: SGEMM ``v0 -> v1_tiled32`` went 2.5
    -> 4.0 by coalescing its 4-byte loads (``LDG.E`` 32 bits both), no wider load.
    """
    a, b = _fact(x, "ldg_bits"), _fact(y, "ldg_bits")
    if ok(a) and ok(b):
        return _rose("ldg_bits", a, b, 2.0)
    a, b = (measured_ratio(s.row, "sectors_per_request") for s in (x, y))
    return _rose("sectors", a, b, MOVED) if ok(b) and b > LANE_SECTORS else None


def more_loads(x: Side, y: Side) -> dict[str, Any] | None:
    """More global loads in the SASS (more of them in flight per thread)."""
    return _rose("loads", _fact(x, "global_loads"), _fact(y, "global_loads"), MOVED)


def more_warps(x: Side, y: Side) -> dict[str, Any] | None:
    """More resident warps: achieved occupancy up."""
    a, b = (measured_ratio(s.row, "achieved_occupancy_pct") for s in (x, y))
    return _rose("occupancy", a, b, WARPS_MOVED)


def fewer_launches(x: Side, y: Side) -> dict[str, Any] | None:
    """Fewer kernel launches in the run."""
    if y.launches < x.launches:
        return msg("tried_launches", a=x.launches, b=y.launches)
    return None


def _shared(row: Mapping[str, Any]) -> float:
    return num(row, "shared_ld_inst") + num(row, "shared_st_inst")


def fewer_shared(x: Side, y: Side) -> dict[str, Any] | None:
    """Fewer shared-memory loads and stores (warp shuffles, fewer tree steps)."""
    return _fell("shared", _shared(x.row), _shared(y.row), MOVED)


def _fewer(name: str, column: str, factor: float, scale: float = 1.0) -> Change:
    """The change that a counter ``column`` fell by ``factor`` (shown / ``scale``)."""

    def change(x: Side, y: Side) -> dict[str, Any] | None:
        a, b = (num(s.row, column) / scale for s in (x, y))
        return _fell(name, a, b, factor)

    return change


def more_blocks(x: Side, y: Side) -> dict[str, Any] | None:
    """More blocks in the grid."""
    a, b = (num(s.row, "grid_blocks") for s in (x, y))
    return _rose("blocks", a, b, MOVED)


fewer_atomics = _fewer("atomics", "l2_atomic_sectors", MOVED)  # fewer L2 atomics
fewer_dram = _fewer("dram", "dram_bytes", INST_MOVED, 1e6)  # fewer DRAM bytes, MB
fewer_local = _fewer("local", "local_sectors", MOVED)  # fewer local-memory sectors
fewer_inst = _fewer("inst", "inst_executed", INST_MOVED)  # fewer warp instructions


IN_FLIGHT: tuple[Change, ...] = (wider, more_loads, more_warps)
ISSUE: tuple[Change, ...] = (fewer_inst,)
# the changes that carry out each suggestion kind's remedy, in the order its remedy
# sentence names them
REMEDIES: Mapping[str, tuple[Change, ...]] = {
    "bytes_in_flight": IN_FLIGHT,
    "memory_latency": IN_FLIGHT,
    "lsu_queue": (wider, fewer_inst),
    "later_launch": (fewer_launches,),
    "shared_pipe": (fewer_shared,),
    "mio_shuffle": (fewer_shared, fewer_inst),
    "hot_atomics": (fewer_atomics,),
    "global_atomics": (fewer_atomics,),
    "low_occupancy": (more_warps,),
    "grid_too_small": (more_blocks,),
    "dram_excess": (fewer_dram,),
    "uncoalesced_loads": (wider, fewer_dram),
    "local_memory": (fewer_local,),
    "issue": ISSUE,
    "issue_bound": ISSUE,
    "instruction_overhead": ISSUE,
    "dispatch": ISSUE,
}


def remedy_tried(kind: str, before: Side, after: Side) -> dict[str, Any] | None:
    """The first change of ``kind``'s remedy the step made (None: none of them)."""
    for change in REMEDIES.get(kind, ()):
        found = change(before, after)
        if found is not None:
            return found
    return None


# the change each expected mechanism makes, read from the two rows (the remedies'
# changes above, without the compiler facts)
CARRIED_BY: Mapping[str, tuple[Change, ...]] = {
    WIDER: (wider,),
    "bytes_in_flight": (wider, more_warps),
    "instruction_count": (fewer_inst,),
}


def carried_out(
    expected: list[str], previous: Mapping[str, Any], after: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The changes the expected mechanisms make that the step's counters show.

    Reduction ``v3_vec4``'s float4 loads: load sectors per request 4 -> 16, issued
    warp instructions about halved, and the time did not move (-2.3%, within its
    5.8% line): the step did what it meant, and what it changed did not bound it.
    """
    x, y = Side(previous, {}, 1), Side(after, {}, 1)
    out: list[dict[str, Any]] = []
    for mechanism in expected:
        for change in CARRIED_BY.get(mechanism, ()):
            found = change(x, y)
            if found is not None:
                out += [found] if found not in out else []
                break
    return out
