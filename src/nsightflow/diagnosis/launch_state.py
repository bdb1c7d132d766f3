"""Facts of one launch: DRAM traffic against the ideal, occupancy, register spills.

Each rule states its precondition and stays silent otherwise: the metrics it reads
measured (a ratio ncu reports as 0 or n/a is not a value) and past the rule's
threshold. These are ``info`` records that the report lists after a baseline's causes
(spills after a step's too); what a step moved between two launches is in
:mod:`nsightflow.diagnosis.moves`. Pure functions.
"""

from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.memory import measured_ratio
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg

OCC_GAP_PP = 20.0  # achieved below theoretical by this many points
MANY_WAVES = 4.0  # with more waves per SM an occupancy gap is no tail effect


def occupancy_state(row: Mapping[str, Any]) -> list[Finding]:
    """What caps theoretical occupancy, and an achieved occupancy far below it."""
    limits = {
        k: num(row, k)
        for k in (
            "occ_limit_registers",
            "occ_limit_shared_mem",
            "occ_limit_warps",
            "occ_limit_blocks",
        )
    }
    limits = {k: v for k, v in limits.items() if ok(v)}
    theoretical = num(row, "theoretical_occupancy_pct")
    achieved = measured_ratio(row, "achieved_occupancy_pct")
    found = []
    if limits and ok(theoretical) and theoretical < 100:
        key = min(limits, key=lambda k: limits[k])
        found.append(
            Finding(
                "occupancy_capped",
                params={
                    "theoretical": theoretical,
                    "limiter": msg("limiter_" + key.removeprefix("occ_limit_")),
                    "blocks": limits[key],
                    col.METRIC: f"launch__occupancy_limit_{key.removeprefix('occ_limit_')}",
                },
                metric=f"launch__occupancy_limit_{key.removeprefix('occ_limit_')}",
                value=theoretical,
                threshold=100.0,
            )
        )
    waves = measured_ratio(row, "waves_per_sm")
    if ok(theoretical) and ok(achieved) and theoretical - achieved > OCC_GAP_PP:
        if ok(waves) and waves > MANY_WAVES:
            found.append(
                Finding(
                    "occupancy_gap",
                    params={
                        "achieved": achieved,
                        "theoretical": theoretical,
                        "waves": waves,
                    },
                    metric="sm__warps_active.avg.pct_of_peak_sustained_active",
                    value=achieved,
                    threshold=theoretical - OCC_GAP_PP,
                )
            )
    return found


HALF_EMPTY = 0.5  # achieved / theoretical occupancy at or below which a step says so


def half_empty(row: Mapping[str, Any]) -> list[Finding]:
    """A step's new variant holding at most half the warps it could (or nothing).

    The occupancy gap of :func:`occupancy_state`, said after a step only where it is
    this large: blocks that retire faster than the SM starts new ones (a 64-thread
    block doing one element per thread) leave most warp slots empty.
    """
    achieved = measured_ratio(row, "achieved_occupancy_pct")
    theoretical = num(row, "theoretical_occupancy_pct")
    if not (ok(achieved) and ok(theoretical)) or achieved > HALF_EMPTY * theoretical:
        return []
    return [f for f in occupancy_state(row) if f.rule == "occupancy_gap"]


def spills(
    resources: Mapping[str, Any], bound: tuple[str, int, int] = ("", 255, 0)
) -> list[Finding]:
    """Register spills ptxas reported, and whether the register cap is what spills.

    ``bound``: the source's ``__launch_bounds__``, the registers per thread they
    allow and the block's threads (:func:`~nsightflow.diagnosis.variant_facts.bounds_registers`). Relaxing the
    bounds is a remedy only where the registers used reach that cap: SGEMM ``v4``'s
    ``__launch_bounds__(THREADS)`` at 1,024 threads allows 64 and it uses 32, so what
    spills is what ptxas keeps live, not the bounds.
    """
    stores = resources.get("spill_store_bytes", 0) or 0
    loads = resources.get("spill_load_bytes", 0) or 0
    if not (stores or loads):
        return []
    used = int(resources.get(col.REGISTERS) or 0)
    bounds, cap, threads = bound
    binds = used >= cap  # the bounds, or the 255 a thread may have
    return [
        Finding(
            "spills" if binds else "spills_free",
            params={
                "stores": stores,
                "loads": loads,
                col.REGISTERS: resources.get(col.REGISTERS),
                "cap": cap,
                "allowed": msg("spill_cap_bounds", bounds=bounds, threads=threads)
                if bounds
                else msg("spill_cap_none"),
            },
            metric="ptxas spill stores + loads",
            value=float(stores + loads),
            threshold=0.0,
        )
    ]


def dram_state(row: Mapping[str, Any]) -> list[Finding]:
    """DRAM bytes against the ideal (where DRAM saw the traffic)."""
    moved, ideal = num(row, "dram_bytes"), num(row, "ideal_bytes")
    if not (ok(moved) and ok(ideal) and ideal > 0 and moved > 0):
        return []
    ratio = moved / ideal
    return [
        Finding(
            "dram_traffic",
            params={
                col.RATIO: ratio,
                col.MOVED: moved / 1e6,
                "ideal": ideal / 1e6,
                col.VERDICT: _dram_verdict(row, ratio),
            },
            metric="dram__bytes_read.sum + dram__bytes_write.sum",
            value=ratio,
            threshold=AT_IDEAL,
        )
    ]


BELOW_IDEAL = 0.8  # DRAM bytes / ideal below which part of the data never left the L2
AT_IDEAL = 1.2  # DRAM bytes / ideal up to which DRAM moves the ideal bytes
# L1 requested bytes / DRAM bytes from which the caches served re-reads: a kernel
# that reads each byte once asks L1 for about the DRAM bytes (1-1.3x with the
# sectors a warp's accesses straddle), a stencil's five reads for several times them.
REREAD_MARGIN = 1.5


def _mb(value: float) -> float:
    """Bytes as MB, 0 where not measured."""
    return value / 1e6 if ok(value) else 0.0


def _dram_verdict(row: Mapping[str, Any], ratio: float) -> dict[str, Any]:
    """What DRAM bytes at this ratio to the ideal say, checked against L1's requests.

    "The caches absorb the re-reads" only where L1 was asked for at least
    :data:`REREAD_MARGIN` times the DRAM bytes (there were re-reads to absorb);
    "re-read" only above :data:`AT_IDEAL` times the ideal bytes.
    """
    if ratio < BELOW_IDEAL:
        return msg("dram_below_ideal")
    if ratio > AT_IDEAL:
        return msg(
            "dram_reread",
            reads=_mb(num(row, "dram_read_bytes")),
            writes=_mb(num(row, "dram_write_bytes")),
        )
    l1, dram = num(row, "l1_bytes_moved"), num(row, "dram_bytes")
    if ok(l1) and ok(dram) and dram > 0 and l1 >= REREAD_MARGIN * dram:
        return msg("dram_absorbed_by", l1=l1 / 1e6, ratio=l1 / dram)
    return msg("dram_at_ideal", l1=_mb(l1))


def busy_sm_share(row: Mapping[str, Any]) -> float:
    """The share of the SMs that hold a block, where the grid is under one wave.

    With fewer blocks than SMs and under one wave, an SM holds one block or none,
    whatever its registers allow: SGEMM ``v5``-``v7`` at n = 1024 launch 64 blocks
    on 132 SMs, 0.48 of them busy. 1.0 where every SM has a block or the counts are
    missing. ncu's ``pct_of_peak_sustained_active`` shares are over the busy SMs'
    active cycles; times this share they are the GPU's.
    """
    waves = measured_ratio(row, "waves_per_sm")
    blocks, sms = num(row, "grid_blocks"), num(row, "sm_count")
    if ok(waves) and 0 < waves < 1 and ok(blocks) and ok(sms) and 0 < blocks < sms:
        return blocks / sms
    return 1.0
