"""Waits on global memory: which mechanism they stand for, checked against the counters.

A wait on global memory (``long_scoreboard``), on the load/store queue
(``lg_throttle``) or on the stores' drain (``drain``) is named by the first
precondition that holds on the launch (:func:`memory_wait`): *global atomics* when L2
atomics are at least half the global load sectors or their busiest slice needs most of
the launch at the family's measured rate (:func:`nsightflow.diagnosis.serial.serialized`:
hotatomic ``v1``'s loads wait 20,631 cycles each behind its per-warp atomics, 131,072 on
one slice, 99% of its launch at ``v0``'s 570 per us), *uncoalesced stores* / *loads* when
the sectors exceed what the access width needs (:func:`loads_uncoalesced`,
:func:`stores_uncoalesced`), *local memory* when local traffic or spills exist (for the
queue: when local sectors are at least half of its sectors), *excess DRAM traffic* in
a memory-bound launch that moves 1.5x the ideal bytes; else the DRAM bandwidth itself
(memory-bound at >= 80% of the copy bandwidth), too few bytes in flight (memory-bound
below it) or plain memory latency. A launch whose latency waits come with a
theoretical occupancy of at most 25% and a named limiter has *low occupancy*
(:func:`low_occupancy`). A value ncu reports as 0 or n/a for a ratio never satisfies a
precondition. Pure functions.
"""

import math
from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import STALL_PREFIX as STALL
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg
from nsightflow.diagnosis.serial import serial_evidence, serialized

HALF_SECTOR = 16.0  # bytes used per 32-byte sector below which half of it is wasted
WIDEST_ACCESS_SECTORS = 16.0  # sectors a warp's 16-byte accesses touch, the most needed
# Without the bytes-per-sector counters a request's width is unknown: only sectors well
# beyond the widest access (a quarter more, so that a few scalar loads mixed into
# 16-byte ones do not count) show scattered addresses.
SCATTERED_SECTORS = 1.25 * WIDEST_ACCESS_SECTORS
STORE_RESEND = 2.0  # store sectors per written sector: each sector sent twice or more
# Sectors a full warp's 4-byte accesses touch when coalesced. A request touching no
# more cannot be scattered: bytes unused in its sectors come from idle lanes (partly
# used warps, e.g. one lane storing per warp), which lane efficiency names, not from
# the access pattern.
FULL_WARP_SECTORS = 4.0
DRAM_EXCESS = 1.5  # DRAM bytes / ideal bytes that count as re-reading
ATOMIC_SHARE = 0.5  # L2 atomic sectors / global load sectors: atomics dominate
LOCAL_SHARE = 0.01  # local sectors / global sectors worth naming
# Local sectors / all LSU (local + global) sectors at which a full load/store queue is
# named after local memory: most of what the queue holds is local traffic.
LOCAL_QUEUE_SHARE = 0.5
# Theoretical occupancy at or below which a launch's latency waits are named after it:
# a quarter of the SM's warp slots (16 of 64 on sm_90) or fewer.
LOW_OCCUPANCY_PCT = 25.0
LATENCY_WAITS = ("memory_latency", "bytes_in_flight")
# % of the measured copy bandwidth from which a memory-bound launch's load waits are
# the bandwidth itself (the queue in front of DRAM), not bytes in flight too few to
# cover the latency: more bytes in flight cannot raise a rate at 80% of the ceiling
# by more than 1.25x, and at Jacobi-2D's 97% not at all. The stand's stop line is 90%.
AT_BANDWIDTH_PCT = 80.0
OCCUPANCY_LIMITS = (col.REGISTERS, "shared_mem", "warps", "blocks")


def measured_ratio(row: Mapping[str, Any], key: str) -> float:
    """A ratio metric, NaN where ncu gave 0 or nothing (0 means n/a for these)."""
    value = num(row, key)
    return value if ok(value) and value > 0 else math.nan


def loads_uncoalesced(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """Evidence that global loads fetch more sectors than their width needs, or None."""
    used = measured_ratio(row, "ld_bytes_per_sector")
    spr = measured_ratio(row, "sectors_per_request")
    if ok(used):
        if used >= HALF_SECTOR or (ok(spr) and spr <= FULL_WARP_SECTORS):
            return None
        return msg("ev_loads_bytes", used=used)
    if ok(spr) and spr > SCATTERED_SECTORS:
        return msg("ev_loads_sectors", spr=spr, need=WIDEST_ACCESS_SECTORS)
    return None


def stores_uncoalesced(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """Evidence that global stores send more sectors than their width needs, or None."""
    used = measured_ratio(row, "st_bytes_per_sector")
    spr = measured_ratio(row, "st_sectors_per_request")
    if ok(used):
        if used >= HALF_SECTOR or (ok(spr) and spr <= FULL_WARP_SECTORS):
            return None
        return msg("ev_stores_bytes", used=used)
    if ok(spr):
        if spr <= SCATTERED_SECTORS:
            return None
        return msg("ev_stores_sectors", spr=spr, need=WIDEST_ACCESS_SECTORS)
    resend = measured_ratio(row, "st_sectors_per_written_sector")
    if ok(resend) and resend >= STORE_RESEND:
        return msg("ev_stores_resent", ratio=resend)
    return None


def _atomics(row: Mapping[str, Any]) -> dict[str, Any] | None:
    atomics = num(row, "l2_atomic_sectors")
    loads = num(row, "global_ld_sectors")
    t = num(row, "ncu_time_us")
    if not (ok(atomics) and atomics > 0 and ok(t) and t > 0):
        return None
    if ok(loads) and atomics < ATOMIC_SHARE * loads:
        # fewer atomics than loads, but the loads queue behind them on their slice
        return serial_evidence(row) if serialized(row) else None
    per = atomics / loads if ok(loads) and loads > 0 else math.nan
    return msg(
        "ev_global_atomics",
        sectors=atomics,
        rate=atomics / t,
        loads=msg("atomics_per_load", ratio=per) if ok(per) else "",
    )


def _local(row: Mapping[str, Any]) -> dict[str, Any] | None:
    local = num(row, "local_sectors")
    glob = num(row, "global_ld_sectors") + num(row, "global_st_sectors")
    if ok(local) and local > 0 and ok(glob) and local >= LOCAL_SHARE * glob:
        return msg("ev_local_sectors", sectors=local)
    spilled = num(row, col.SPILL_BYTES)
    if ok(spilled) and spilled > 0:
        return msg("ev_local_spills", nbytes=spilled)
    return None


def _local_queue(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """Local traffic as most of what fills the load/store queue (``lg_throttle``)."""
    local = num(row, "local_sectors")
    glob = num(row, "global_ld_sectors") + num(row, "global_st_sectors")
    if not (ok(local) and local > 0 and ok(glob)):
        return None
    share = local / (local + glob)
    if share < LOCAL_QUEUE_SHARE:
        return None
    return msg("ev_local_queue", sectors=local, share=100 * share)


def _dram_excess(row: Mapping[str, Any]) -> dict[str, Any] | None:
    moved, ideal = num(row, "dram_bytes"), num(row, "ideal_bytes")
    if row.get(col.REGIME) != "memory" or not (ok(moved) and ok(ideal) and ideal > 0):
        return None
    if moved < DRAM_EXCESS * ideal:
        return None
    return msg(
        "ev_dram_excess", ratio=moved / ideal, moved=moved / 1e6, ideal=ideal / 1e6
    )


def memory_wait(
    row: Mapping[str, Any], group: str, skip: frozenset[str] = frozenset()
) -> tuple[str, dict[str, Any]]:
    """Name a wait on global memory (or its queues) by the first precondition that holds."""
    checks: list[tuple[str, dict[str, Any] | None]] = [
        ("global_atomics", _atomics(row)),
        (
            "uncoalesced_stores",
            stores_uncoalesced(row) if group != "memory_wait" else None,
        ),
        (
            "uncoalesced_loads",
            loads_uncoalesced(row) if group != "store_drain" else None,
        ),
        ("local_memory", _local(row) if group == "memory_wait" else None),
        ("local_memory", _local_queue(row) if group == "lsu_queue" else None),
        ("dram_excess", _dram_excess(row) if group == "memory_wait" else None),
    ]
    for name, evidence in checks:
        if evidence is not None and name not in skip:
            return _both_strided(row, name, evidence, skip)
    if group == "lsu_queue":
        return "lsu_queue", msg("ev_lsu_queue", requests=num(row, "global_ld_requests"))
    if group == "store_drain":
        return "store_drain", msg("ev_store_drain")
    if row.get(col.REGIME) == "memory":
        pct = or_zero(num(row, col.PCT_OF_COPY_BW))
        if pct >= AT_BANDWIDTH_PCT:
            return "dram_bandwidth", msg(
                "ev_dram_bandwidth", pct=pct, threshold=AT_BANDWIDTH_PCT
            )
        spr = measured_ratio(row, "sectors_per_request")
        if not ok(spr):
            return "bytes_in_flight", msg("ev_bytes_in_flight_nospr", pct=pct)
        return "bytes_in_flight", msg("ev_bytes_in_flight", pct=pct, spr=spr)
    return "memory_latency", msg(
        "ev_memory_latency", l2=or_zero(num(row, "l2_hit_pct")), dram=_dram_pct(row)
    )


BOTH = "uncoalesced_access"  # strided loads and strided stores, named together


def _both_strided(
    row: Mapping[str, Any], name: str, evidence: dict[str, Any], skip: frozenset[str]
) -> tuple[str, dict[str, Any]]:
    """Loads (stores) named with the stores (loads) where both waste their sectors.

    A kernel whose loads and stores are both strided (a thread per row of a
    row-major array) is named after both, whichever stall showed it first.
    """
    if name not in ("uncoalesced_loads", "uncoalesced_stores") or BOTH in skip:
        return name, evidence
    loads, stores = loads_uncoalesced(row), stores_uncoalesced(row)
    if loads is None or stores is None:
        return name, evidence
    return BOTH, msg("ev_loads_and_stores", loads=loads, stores=stores)


def _dram_pct(row: Mapping[str, Any]) -> float:
    return or_zero(num(row, "dram_pct"))


def or_zero(value: float) -> float:
    """A measured value, or 0 where it is missing (for a message, not a test)."""
    return value if ok(value) else 0.0


def low_occupancy(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """Evidence that a launch holds too few warps to hide its memory latency, or None.

    Where the launch's theoretical occupancy is at most :data:`LOW_OCCUPANCY_PCT` and
    ncu names what caps it (the resource allowing the fewest blocks per SM): its
    waits on global memory are then named after the few resident warps, whose fix is
    the resource, rather than after the latency itself. Not where the schedulers
    already have warps to spare (:func:`warps_to_spare`).
    """
    theoretical = num(row, "theoretical_occupancy_pct")
    if not (ok(theoretical) and 0 < theoretical <= LOW_OCCUPANCY_PCT):
        return None
    if warps_to_spare(row):
        return None
    limits = {k: num(row, f"occ_limit_{k}") for k in OCCUPANCY_LIMITS}
    limits = {k: v for k, v in limits.items() if ok(v)}
    if not limits:
        return None
    key = min(limits, key=lambda k: limits[k])
    warps = num(row, "max_warps_per_sm")
    return msg(
        "ev_low_occupancy",
        theoretical=theoretical,
        achieved=or_zero(measured_ratio(row, "achieved_occupancy_pct")),
        warps=theoretical * warps / 100 if ok(warps) else 0.0,
        slots=or_zero(warps),
        limiter=msg(f"limiter_{key}"),
        blocks=limits[key],
        metric=f"launch__occupancy_limit_{key}",
        threshold=LOW_OCCUPANCY_PCT,
    )


def warps_to_spare(row: Mapping[str, Any]) -> bool:
    """Ready warps wait for the scheduler at least as long as the loads wait.

    ``not_selected`` is a warp that could issue while another was picked; where its
    cycles per issued instruction are at least the global loads' (``long_scoreboard``),
    the schedulers have an eligible warp to spare whenever one waits on a load, so
    more resident warps cannot hide the loads better. ncu says so itself: SGEMM
    ``v6`` at n = 4096 (25% theoretical occupancy) waits 2.34 cycles per instruction
    not selected against 0.55 on its loads ("you have sufficient warps to cover warp
    latencies"), and its loads were named too few warps.
    """
    spare = num(row, f"{STALL}not_selected")
    loads = num(row, f"{STALL}long_scoreboard")
    return ok(spare) and ok(loads) and spare > 0 and spare >= loads
