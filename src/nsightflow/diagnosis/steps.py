"""Why a step changed the time: its factors ranked by how much of the change each makes.

:func:`nsightflow.diagnosis.step_split.step_terms` splits ``ln(t1/t0)`` of the two
profiled launches exactly into factors: the instruction count (its part of every
reason's warp-cycles), the per-instruction part of each stall reason's warp-cycles,
occupancy, clock, idle SM time. The stall reasons are grouped and named as mechanisms
(:mod:`nsightflow.diagnosis.causes`, on the launch where the group is larger; a
coalescing mechanism only where the coalescing changed that way), and factors naming
the same mechanism are added. The factor that moved the time most in
the direction it went is the step's primary cause; the others that alone change the
time by 5% or more are its secondary causes (those that pushed the other way too, as
what offset it). Below a 2% change the primary finding says the time did not change.

What the step was expected to do, against what the counters show, is
:mod:`nsightflow.diagnosis.expected`'s. Pure functions.
"""

import math
from collections.abc import Mapping
from typing import Any

from nsightflow.diagnosis.account import ncu_part, time_shares
from nsightflow.diagnosis.causes import GROUPS, name_change
from nsightflow.diagnosis.credit import (
    OTHER_STALLS,
    local_quantity,
    named_first,
    pool,
    pooled_finding,
)
from nsightflow.diagnosis.expected import expectation

__all__ = ["expectation", "step_causes"]
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.factors import (
    COUNT,
    LANES,
    LOADS_FACTOR,
    WIDER,
    detail,
    factor_evidence,
    fuller_lanes,
    wider_requests,
)
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.diagnosis.step_split import LOADS, alone, step_terms
from nsightflow.diagnosis.verdict import SAME_PCT, threshold_pct

UNCHANGED = math.log(1.02)  # below a 2% change of ncu's time: no change
MIN_ALONE_PCT = 5.0  # a factor that alone changes the time less is not listed ...
MIN_SHARE = 0.1  # ... unless it is at least this share of the step's change
FACTORS = ("occupancy", "clock")


def _grouped(
    before: Mapping[str, Any], after: Mapping[str, Any], terms: Mapping[str, float]
) -> dict[str, dict[str, Any]]:
    """Terms per mechanism, the instruction count, occupancy and clock included.

    Each stall group's per-instruction part is named on the side where it is larger
    (:func:`~nsightflow.diagnosis.causes.name_change`).
    """
    out: dict[str, dict[str, Any]] = {}
    for group, reasons in GROUPS.items():
        term = sum(terms.get(r, 0.0) for r in reasons)
        if term == 0.0:
            continue
        row, other = (after, before) if term > 0 else (before, after)
        name, found = name_change(row, other, group)
        # say whose metrics the evidence is: the launch where the group is larger
        evidence = msg("ev_in", variant=str(row.get(col.VARIANT, "")), evidence=found)
        entry = out.setdefault(
            name, {"term": 0.0, "reasons": (), col.EVIDENCE: evidence}
        )
        entry["term"] += term
        entry["reasons"] += reasons
    counts = ((COUNT, "instructions"), (LOADS_FACTOR, LOADS))
    for factor, key in (*((f, f) for f in FACTORS), *counts):
        if factor == LOADS_FACTOR and not terms.get(key):
            continue  # no wait counted per global load moved with their count
        if factor == "clock" and not clock_moved(before, after):
            continue  # its term stays with the other factors: no named clock part
        if factor == "occupancy" and _grid_bound(before, after, terms[key]):
            factor = "grid_too_small"  # the warps missing are blocks never launched
        out.setdefault(factor, {"term": 0.0, "reasons": (), col.EVIDENCE: None})
        out[factor]["term"] += terms[key]
    return out


def clock_moved(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """Whether the SM clock moved beyond the noise line a time change must cross.

    ncu runs with ``--clock-control none``: the clock follows load and temperature
    from launch to launch (SGEMM's 54 profiled launches: 1.96-2.00 GHz). A move
    under :data:`~nsightflow.diagnosis.verdict.SAME_PCT` (reduction ``v0 -> v1``'s
    main kernel: 1.94 -> 1.97 GHz, 1.5%) is no change of the clock, and its part of
    the time stays with the other factors instead of being credited to the clock.
    """
    f0, f1 = num(before, "sm_hz"), num(after, "sm_hz")
    if not (ok(f0) and ok(f1) and f0 > 0):
        return False
    return abs(100 * (f1 / f0 - 1)) >= SAME_PCT


def _grid_bound(
    before: Mapping[str, Any], after: Mapping[str, Any], occupancy: float
) -> bool:
    """The side with fewer resident warps has under a wave of blocks, and fewer.

    Fewer blocks than the other side, too. Its SMs then hold one block or none whatever the registers allow (SGEMM's
    128x128 tiles at n = 1024: 64 blocks on 132 SMs, 8 warps on each busy SM): the
    occupancy it lost is the grid's size, not a resource. Where both grids have the
    same blocks (SGEMM v6 -> v7 at n = 1024: 64 and 64, 256 -> 128 threads each),
    the warps went with the block's size: an occupancy change, not the grid's.
    """
    fewer, other = (after, before) if occupancy > 0 else (before, after)
    waves, blocks = num(fewer, "waves_per_sm"), num(fewer, "grid_blocks")
    sms, more = num(fewer, "sm_count"), num(other, "grid_blocks")
    small = ok(waves) and 0 < waves < 1 and ok(blocks) and ok(sms) and blocks < sms
    return small and not (ok(more) and more <= blocks)


def step_causes(
    before: Mapping[str, Any], after: Mapping[str, Any], verdict: str = ""
) -> tuple[list[Finding], float]:
    """The step's ranked causes (primary first) and ``ln`` of ncu's time ratio.

    ``verdict``: the step's outcome from the event timing
    (:func:`nsightflow.diagnosis.verdict.outcome`; ``""`` untimed). Where it is no
    change the primary says so; where it saw a change that ncu's single launch does
    not show in the same direction (by 2% or more), the primary says that the
    counters cannot rank it. Empty when either launch lacks a factor of the split.
    """
    terms = fold_consequences(step_terms(before, after))
    if not terms:
        return [], math.nan
    total = math.log(num(after, "ncu_time_us") / num(before, "ncu_time_us"))
    grouped = _grouped(before, after, terms)
    # the same evidence, in the expert's words, where the count made the launch
    # faster; fuller lanes first: they also make each request wider, with no wider
    # access
    faster = COUNT in grouped and grouped[COUNT]["term"] < 0
    if faster and fuller_lanes(before, after) is not None:
        grouped[LANES] = grouped.pop(COUNT)
    elif faster and wider_requests(before, after) is not None:
        grouped[WIDER] = grouped.pop(COUNT)
    grouped = pool(before, after, grouped)  # parts that moved no metric of their own
    # each term is its factor's part of the change over L(t0, t1) (step_terms)
    unchanged = abs(total) < UNCHANGED  # shares of a near-zero change mean nothing
    shares = {
        n: math.nan if unchanged else e["term"] / total for n, e in grouped.items()
    }
    head = _no_ranking(before, after, total, verdict)
    if head is not None:
        ranked = sorted(grouped.items(), key=lambda kv: -abs(kv[1]["term"]))
        listed = [kv for kv in ranked if _listed(kv[1]["term"], total)]
        found = [_change(before, after, n, e, shares[n]) for n, e in listed]
        return [head, *found], total
    sign = 1.0 if total > 0 else -1.0
    ranked = named_first(
        sorted(grouped.items(), key=lambda kv: -sign * kv[1]["term"]),
        sign,
        lambda term: _listed(term, total),
    )
    # the primary moved the time most its way; the rest by size, either way
    ranked = ranked[:1] + sorted(ranked[1:], key=lambda kv: -abs(kv[1]["term"]))
    listed = [
        kv for i, kv in enumerate(ranked) if i == 0 or _listed(kv[1]["term"], total)
    ]
    found = [_change(before, after, n, e, shares[n]) for n, e in listed]
    bytes_moved = dram_time_change(before, after, total)
    # the SM-side factors are the same time seen from the warps: not counted twice
    return (bytes_moved if bytes_moved else found), total


def _listed(term: float, total: float) -> bool:
    """A factor worth its own line: 5% of the time alone, or a tenth of the change."""
    return abs(alone(term)) >= MIN_ALONE_PCT or abs(term) >= MIN_SHARE * abs(total)


def fold_consequences(terms: dict[str, float]) -> dict[str, float]:
    """``terms`` with the ``not_selected`` change that occupancy caused moved to it.

    ``not_selected`` counts the cycles an eligible warp waits while another warp of
    its scheduler issues: with the issue slots busy it grows with the resident warps
    (twice the warps, each waits twice as long for its slot, at the same time). Where
    the occupancy term and the ``not_selected`` term point opposite ways, the latter
    is the occupancy's own consequence (SGEMM's 1-D register blocking: half the
    warps, and ``not_selected`` per instruction fell with them) and is counted under
    occupancy, up to the occupancy's own size (what is left is a change of the
    issue itself); the sum of the terms is unchanged.
    """
    if not terms or terms["occupancy"] * terms.get("not_selected", 0.0) >= 0:
        return terms
    out = dict(terms)
    moved = math.copysign(
        min(abs(out["not_selected"]), abs(out["occupancy"])), out["not_selected"]
    )
    out["occupancy"] += moved
    out["not_selected"] -= moved
    return out


def _no_ranking(
    before: Mapping[str, Any], after: Mapping[str, Any], total: float, verdict: str
) -> Finding | None:
    """The primary of a step whose factors are not ranked, or None.

    No change (by the timing's verdict, or ncu's under 2% without timing), or a
    change the timing saw that ncu's launch does not show the same way.
    """
    t0, t1 = num(before, "ncu_time_us"), num(after, "ncu_time_us")
    e0, e1 = num(before, col.TIME_MEDIAN_US), num(after, col.TIME_MEDIAN_US)
    ncu_same = abs(total) < UNCHANGED
    if verdict == "no_gain" or (not verdict and ncu_same):
        # the sentence prints the change and the line the verdict applied to it
        timed = verdict == "no_gain"
        return Finding(
            "step_unchanged",
            params={
                "pct": 100 * (e1 / e0 - 1) if timed else alone(total),
                col.LINE: threshold_pct(before, after) if timed else SAME_PCT,
                "by": msg("by_timing" if timed else "by_ncu"),
                "ncu_pct": alone(total),
            },
            metric=col.TIME_MEDIAN_US if timed else "gpu__time_duration.sum",
            before=e0 if timed else t0,
            after=e1 if timed else t1,
            threshold=threshold_pct(before, after) if timed else SAME_PCT,
            share=1.0,
        )
    if verdict and (ncu_same or (total < 0) != (verdict == "paid")):
        return Finding(
            "step_not_in_counters",
            params={"pct": 100 * (e1 / e0 - 1), "ncu_pct": alone(total)},
            metric=col.TIME_MEDIAN_US,
            before=e0,
            after=e1,
            share=1.0,
        )
    return None


DRAM_SATURATED_PCT = 60.0  # a side whose DRAM runs this close to the copy bandwidth
DRAM_BYTES_MOVED = 0.2  # relative change of DRAM bytes that can decide a step
DRAM_SHARE = 0.5  # the DRAM-time change must account for this much of the change
DRAM_BYTES = "dram_bytes"  # the bytes' factor of the time as bytes over rate


def dram_time_change(
    before: Mapping[str, Any], after: Mapping[str, Any], total: float
) -> list[Finding]:
    """The step split as DRAM bytes over achieved DRAM bandwidth, where bytes decide.

    Only where DRAM runs near the copy bandwidth on one side (its time is its bytes
    over the bandwidth), the bytes changed by a fifth or more, and the bytes' term
    accounts for half of ncu's time change or more, in its direction. The split is
    exact: with ``B`` the DRAM bytes and ``R = B / t`` the achieved rate,
    ``ln(t1/t0) = ln(B1/B0) - ln(R1/R0)``. The instructions and stalls that fell
    with the loads are then the same time seen from the warps, not rival causes.
    The bytes are named *local memory* where the local-memory traffic that went (or
    came) is at least half of the bytes' change.
    """
    x, y = num(before, "dram_bytes"), num(after, "dram_bytes")
    t0, t1 = num(before, "ncu_time_us"), num(after, "ncu_time_us")
    saturated = max(num(before, "dram_pct"), num(after, "dram_pct"))
    if not all(ok(v) and v > 0 for v in (x, y, t0, t1)) or not ok(total):
        return []
    if total == 0 or not (ok(saturated) and saturated >= DRAM_SATURATED_PCT):
        return []
    bytes_term = math.log(y / x)
    share = time_shares(before, after, {DRAM_BYTES: bytes_term})[DRAM_BYTES]
    if abs(y - x) < DRAM_BYTES_MOVED * x or share < DRAM_SHARE:
        return []
    local = [num(r, "local_sectors") * 32 for r in (before, after)]
    moved_local = local[1] - local[0] if all(ok(v) for v in local) else 0.0
    rule = "local_memory" if moved_local / (y - x) >= DRAM_SHARE else "dram_bytes"
    bytes_part = Finding(
        rule=rule,
        params=msg(
            "cause_change",
            label=msg(f"mech_{rule}"),
            detail=msg(
                "detail_dram_bytes",
                x=x / 1e6,
                y=y / 1e6,
                lx=local[0] / 1e6,
                ly=local[1] / 1e6,
            ),
            evidence=msg("ev_dram_bytes", pct=saturated),
        ),
        metric="dram__bytes_read.sum + dram__bytes_write.sum",
        before=x,
        after=y,
        threshold=DRAM_SATURATED_PCT,
        share=share,
    )
    return [bytes_part, _dram_rate(before, after, 1.0 - share)]


def _dram_rate(
    before: Mapping[str, Any], after: Mapping[str, Any], share: float
) -> Finding:
    """The achieved DRAM rate's part of a step split as bytes over rate."""
    x, y = num(before, "dram_bytes"), num(after, "dram_bytes")
    t0, t1 = num(before, "ncu_time_us"), num(after, "ncu_time_us")
    r0, r1 = x / t0 / 1e3, y / t1 / 1e3  # GB/s
    rate = Finding(
        rule="dram_rate",
        params=msg(
            "cause_change",
            label=msg("mech_dram_rate"),
            part=ncu_part(before, after, share),
            detail=msg("detail_dram_rate", x=r0, y=r1),
            evidence="",
        ),
        metric="(dram__bytes_read.sum + dram__bytes_write.sum) / gpu__time_duration.sum",
        before=r0,
        after=r1,
        share=share,
    )
    return rate


def _change(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    name: str,
    entry: Mapping[str, Any],
    share: float,
) -> Finding:
    """The record of one factor of a step's change: ``share`` of ncu's change."""
    if name == OTHER_STALLS:
        return pooled_finding(entry, ncu_part(before, after, share), share)
    said, metric, x, y = detail(before, after, name, entry["reasons"])
    if name == "local_memory":  # quoted by its own traffic, not the waits it cost
        metric, x, y = local_quantity(before, after)
    evidence = entry[col.EVIDENCE] or factor_evidence(before, after, name)
    fields = {
        "label": msg(f"mech_{name}"),
        "part": ncu_part(before, after, share),
        "detail": said,
        col.EVIDENCE: evidence,
    }
    return Finding(
        rule=name,
        params=msg("cause_change", **fields),
        metric=metric,
        before=x,
        after=y,
        share=share,
        evidence=", ".join(entry["reasons"]),
    )
