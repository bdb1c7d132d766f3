"""Why a step changed the time: its factors ranked by how much of the change each makes.

:func:`nsightflow.diagnosis.model.step_terms` splits ``ln(t1/t0)`` of the two
profiled launches exactly into factors: the instruction count (its part of every
reason's warp-cycles), the per-instruction part of each stall reason's warp-cycles,
occupancy, clock, idle SM time. The stall reasons are grouped and named as mechanisms
(:mod:`nsightflow.diagnosis.causes`, on the launch where the group is larger; a
coalescing mechanism only where the coalescing changed that way), and factors naming
the same mechanism are added. The factor that moved the time most in
the direction it went is the step's primary cause; the others that alone change the
time by 5% or more are its secondary causes (those that pushed the other way too, as
what offset it). Below a 2% change the primary finding says the time did not change.

What the step was expected to do is read from its idea (:data:`EXPECTED_BY_IDEA`,
words of the manifest's one-line idea) and from the previous variant's diagnosis (its
largest cause); the record says whether that is what the counters show. Pure functions.
"""

import math
import re
from collections.abc import Mapping
from typing import Any

from nsightflow.diagnosis.causes import GROUPS, causes, name_change
from nsightflow.diagnosis.factors import (
    COUNT,
    LANES,
    WIDER,
    detail,
    factor_evidence,
    fuller_lanes,
    wider_requests,
)
from nsightflow.diagnosis.model import alone, num, ok, step_terms
from nsightflow.diagnosis.record import Finding, msg

UNCHANGED = math.log(1.02)  # below a 2% change of ncu's time: no change
MIN_ALONE_PCT = 5.0  # a factor that alone changes the time less is not listed
FACTORS = ("occupancy", "clock")

# What a step's idea sets out to reduce, read from the manifest's idea text (a
# heuristic over our ladders' words: case-insensitive regular expression ->
# mechanisms of :mod:`nsightflow.diagnosis.causes`).
EXPECTED_BY_IDEA: tuple[tuple[str, tuple[str, ...]], ...] = (
    (r"pad|swizzl|without bank conflicts|conflicts disappear", ("bank_conflicts",)),
    (
        r"float4|vector|16-byte|wider",
        (WIDER, "instruction_count", "bytes_in_flight", "lsu_queue"),
    ),
    (
        r"coarsen|per thread|outputs? of a|reus|strip|two vertically|outer product",
        ("instruction_count",),
    ),
    (r"double.buffer|two shared buffers|overlap", ("barrier", "memory_latency")),
    (
        r"shared[- ]memory tile|tiles? of|staged|tile scan|tiled",
        ("memory_latency", "bytes_in_flight", "dram_excess", "lsu_queue"),
    ),
    (r"privati|sub-histogram|shared-memory histogram", ("global_atomics",)),
    (r"one kernel|no second (pass|kernel)|fus(e|ed|ion)", ("launch_removed",)),
    (r"fewer lanes per shared address|4 lanes", ("shared_atomics",)),
    (r"shuffle", ("barrier", "shared_pipe", "instruction_count")),
    (r"sequential addressing|divergen|lanes? idle", (LANES, "instruction_count")),
    # a resident grid: no blocks retiring and launching, so more warps stay resident
    (
        r"grid-stride|one wave",
        ("idle_sms", "tail_effect", "occupancy", "instruction_count"),
    ),
    (
        r"coalesc|column-major",
        ("uncoalesced_loads", "uncoalesced_stores", "uncoalesced_access"),
    ),
    (
        r"occupancy|fits? on an SM|resident warps|launch_bounds|blocks per SM",
        ("occupancy",),
    ),
    (r"local memory|in registers|spill", ("local_memory",)),
    (r"bytes instead|without its padding", ("dram_excess", "bytes_in_flight")),
    (r"work-efficient|adds per element|~2 adds", ("instruction_count",)),
)


# A launch's cause whose remedy shows in a step as one of its factors.
STEP_FACTOR_OF: dict[str, tuple[str, ...]] = {"low_occupancy": ("occupancy",)}
# A step's factor that is an expected mechanism under another name: fewer, wider
# requests and fuller lanes are the instruction count named by their cause; fewer
# DRAM bytes are the excess traffic removed; loads and stores together are either.
SAME_AS: dict[str, tuple[str, ...]] = {
    WIDER: (COUNT,),
    LANES: (COUNT,),
    "dram_bytes": ("dram_excess", "bytes_in_flight"),
    "uncoalesced_access": ("uncoalesced_loads", "uncoalesced_stores"),
    "grid_too_small": ("occupancy",),
}
# Mechanisms that need a kind of instruction or traffic on one of the two launches.
NEEDS: dict[str, tuple[str, ...]] = {
    "bank_conflicts": ("shared_ld_inst", "shared_st_inst", "shared_atom_inst"),
    "shared_pipe": ("shared_ld_inst", "shared_st_inst", "shared_atom_inst"),
    "shared_atomics": ("shared_atom_inst",),
    "local_memory": ("local_sectors", "spill_bytes"),
    "global_atomics": ("l2_atomic_sectors",),
    "barrier": ("stall_barrier",),
}


def applies(
    mechanism: str, before: Mapping[str, Any], after: Mapping[str, Any]
) -> bool:
    """Whether either launch has what ``mechanism`` needs (True where unmeasured)."""
    keys = NEEDS.get(mechanism)
    if not keys:
        return True
    values = [num(r, k) for r in (before, after) for k in keys]
    measured = [v for v in values if ok(v)]
    return not measured or any(v > 0 for v in measured)


def _meets(rule: str, expected: list[str]) -> bool:
    """A factor ``rule`` is one of the ``expected`` mechanisms (or the same one)."""
    return rule in expected or any(m in expected for m in SAME_AS.get(rule, ()))


def expected_mechanisms(idea: str) -> list[str]:
    """Mechanisms a step's idea sets out to reduce (empty when no word matches)."""
    found: list[str] = []
    for pattern, mechanisms in EXPECTED_BY_IDEA:
        if re.search(pattern, idea, flags=re.IGNORECASE):
            found += [m for m in mechanisms if m not in found]
    return found


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
        evidence = msg("ev_in", variant=str(row.get("variant", "")), evidence=found)
        entry = out.setdefault(name, {"term": 0.0, "reasons": (), "evidence": evidence})
        entry["term"] += term
        entry["reasons"] += reasons
    for factor, key in (*((f, f) for f in FACTORS), (COUNT, "instructions")):
        if factor == "occupancy" and _grid_bound(before, after, terms[key]):
            factor = "grid_too_small"  # the warps missing are blocks never launched
        out.setdefault(factor, {"term": 0.0, "reasons": (), "evidence": None})
        out[factor]["term"] += terms[key]
    return out


def _grid_bound(
    before: Mapping[str, Any], after: Mapping[str, Any], occupancy: float
) -> bool:
    """The side with fewer resident warps has less than one wave of blocks.

    Its SMs then hold one block or none whatever the registers allow (SGEMM's
    128x128 tiles at n = 1024: 64 blocks on 132 SMs, 8 warps on each busy SM): the
    occupancy it lost is the grid's size, not a resource.
    """
    fewer = after if occupancy > 0 else before
    waves, blocks = num(fewer, "waves_per_sm"), num(fewer, "grid_blocks")
    sms = num(fewer, "sm_count")
    return ok(waves) and 0 < waves < 1 and ok(blocks) and ok(sms) and blocks < sms


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
    terms = step_terms(before, after)
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
    head = _no_ranking(before, after, total, verdict)
    if head is not None:
        ranked = sorted(grouped.items(), key=lambda kv: -abs(kv[1]["term"]))
        listed = [kv for kv in ranked if abs(alone(kv[1]["term"])) >= MIN_ALONE_PCT]
        return [head] + [_change(before, after, n, e, total) for n, e in listed], total
    sign = 1.0 if total > 0 else -1.0
    ranked = sorted(grouped.items(), key=lambda kv: -sign * kv[1]["term"])
    listed = [
        kv
        for i, kv in enumerate(ranked)
        if i == 0 or abs(alone(kv[1]["term"])) >= MIN_ALONE_PCT
    ]
    found = [_change(before, after, n, e, total) for n, e in listed]
    bytes_moved = dram_time_change(before, after)
    return ([bytes_moved] if bytes_moved else []) + found, total


def _no_ranking(
    before: Mapping[str, Any], after: Mapping[str, Any], total: float, verdict: str
) -> Finding | None:
    """The primary of a step whose factors are not ranked, or None.

    No change (by the timing's verdict, or ncu's under 2% without timing), or a
    change the timing saw that ncu's launch does not show the same way.
    """
    t0, t1 = num(before, "ncu_time_us"), num(after, "ncu_time_us")
    ncu_same = abs(total) < UNCHANGED
    if verdict == "no_gain" or (not verdict and ncu_same):
        return Finding(
            "step_unchanged",
            params={"pct": alone(total)},
            metric="gpu__time_duration.sum",
            before=t0,
            after=t1,
            share=1.0,
        )
    if verdict and (ncu_same or (total < 0) != (verdict == "paid")):
        e0, e1 = num(before, "time_median_us"), num(after, "time_median_us")
        return Finding(
            "step_not_in_counters",
            params={"pct": 100 * (e1 / e0 - 1), "ncu_pct": alone(total)},
            metric="time_median_us",
            before=e0,
            after=e1,
            share=1.0,
        )
    return None


DRAM_SATURATED_PCT = 60.0  # a side whose DRAM runs this close to the copy bandwidth
DRAM_BYTES_MOVED = 0.2  # relative change of DRAM bytes that can decide a step
DRAM_SHARE = 0.5  # the DRAM-time change must account for this much of the change


def dram_time_change(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> Finding | None:
    """The DRAM bytes a step moved, at the measured copy bandwidth, as its cause.

    Only where DRAM runs near the copy bandwidth on one side (its time is its bytes
    over the bandwidth), the bytes changed by a fifth or more, and their time change
    at the copy bandwidth accounts for half of ncu's time change or more, in its
    direction. The count of instructions that fell with the loads is then a
    consequence, not a rival cause.
    """
    copy = num(after, "copy_gbps")
    x, y = num(before, "dram_bytes"), num(after, "dram_bytes")
    t0, t1 = num(before, "ncu_time_us"), num(after, "ncu_time_us")
    saturated = max(num(before, "dram_pct"), num(after, "dram_pct"))
    if not all(ok(v) and v > 0 for v in (copy, x, y, t0, t1)) or t0 == t1:
        return None
    if not (ok(saturated) and saturated >= DRAM_SATURATED_PCT):
        return None
    if abs(y - x) < DRAM_BYTES_MOVED * x:
        return None
    d0, d1 = x / copy / 1e3, y / copy / 1e3  # us at the copy bandwidth
    share = (d1 - d0) / (t1 - t0)
    if share < DRAM_SHARE:
        return None
    return Finding(
        rule="dram_bytes",
        params=msg(
            "cause_change",
            label=msg("mech_dram_bytes"),
            alone=100 * (d1 - d0) / t0,
            detail=msg("detail_dram_bytes", x=x / 1e6, y=y / 1e6, d0=d0, d1=d1),
            evidence=msg("ev_dram_bytes", pct=saturated),
        ),
        metric="dram__bytes_read.sum + dram__bytes_write.sum",
        before=x,
        after=y,
        threshold=DRAM_SATURATED_PCT,
        share=share,
    )


def _change(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    name: str,
    entry: Mapping[str, Any],
    total: float,
) -> Finding:
    """The record of one factor of a step's change."""
    term = float(entry["term"])
    said, metric, x, y = detail(before, after, name, entry["reasons"])
    evidence = entry["evidence"] or factor_evidence(before, after, name)
    unchanged = abs(total) < UNCHANGED  # shares of a near-zero change mean nothing
    fields = {
        "label": msg(f"mech_{name}"),
        "alone": alone(term),
        "detail": said,
        "evidence": evidence,
    }
    return Finding(
        rule=name,
        params=msg("cause_change", **fields),
        metric=metric,
        before=x,
        after=y,
        share=math.nan if unchanged else term / total,
        evidence=", ".join(entry["reasons"]),
    )


def expectation(
    idea: str,
    previous: Mapping[str, Any],
    after: Mapping[str, Any],
    ranked: list[Finding],
    total: float,
) -> Finding:
    """Expected (from the idea and the previous diagnosis) against observed.

    A mechanism the idea names is expected only where one of the two launches can
    have it (:func:`applies`: no shared-memory conflicts expected of kernels without
    shared memory).
    """
    expected = [m for m in expected_mechanisms(idea) if applies(m, previous, after)]
    top = causes(previous)
    prev = top[0].mechanism if top else ""
    # the remedy of a launch with too few warps is a step's occupancy factor
    for mechanism in (prev, *STEP_FACTOR_OF.get(prev, ())):
        if mechanism and mechanism not in expected:
            expected.append(mechanism)
    helped = [
        f.rule
        for f in ranked
        if _meets(f.rule, expected) and ok(f.share) and f.share * total < 0
    ]
    observed = ranked[0].rule if ranked else ""
    faster = total < 0
    if observed in ("step_unchanged", "step_not_in_counters"):
        verdict = "expect_unchanged"
    elif not expected:
        verdict = "expect_unknown"
    elif helped:
        verdict = "expect_met" if faster else "expect_offset"
    else:
        verdict = "expect_other" if faster else "expect_not_met"
    return Finding(
        "expected_observed",
        params=msg(
            "expected_observed",
            expected=[msg(f"mech_{m}") for m in expected] or [msg("mech_unknown")],
            previous=msg(f"mech_{prev}") if prev else msg("mech_unknown"),
            observed=msg(f"mech_{observed}") if observed else msg("mech_unknown"),
            verdict=msg(
                verdict,
                helped=[msg(f"mech_{m}") for m in helped],
                observed=msg(f"mech_{observed}") if observed else msg("mech_unknown"),
            ),
        ),
        metric="expected: " + ", ".join(expected),
        evidence="observed: " + observed,
    )
