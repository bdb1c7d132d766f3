"""What a step was expected to change, against what its counters show (pure).

The expectation is read from the step's idea (:data:`EXPECTED_BY_IDEA`, words of the
manifest's one-line idea); the previous variant's largest cause is said beside it,
and a library variant has none. The record credits only the expected mechanisms that moved the time the way
the idea meant: faster, or, for an idea that declares a deliberate regression
(:data:`REGRESSION`), slower through what it set out to show.
"""

import re
from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.causes import causes
from nsightflow.diagnosis.efficiency import active_lanes
from nsightflow.diagnosis.factors import COUNT, LANES, LOADS_FACTOR, WIDER
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.diagnosis.tried import carried_out

# What a step's idea sets out to reduce, read from the manifest's idea text (a
# heuristic over our ladders' words: case-insensitive regular expression ->
# mechanisms of :mod:`nsightflow.diagnosis.causes`).
EXPECTED_BY_IDEA: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        r"pad|swizzl|(without|fewer) bank conflicts|conflicts disappear|-way conflicts",
        ("bank_conflicts",),
    ),
    (
        r"float4|vector|16-byte|wider",
        (WIDER, "instruction_count", "bytes_in_flight", "lsu_queue"),
    ),
    (
        r"coarsen|per thread|outputs? of a|reus|strip|two vertically|outer product",
        ("instruction_count",),
    ),
    # values reused from registers are shared-memory reads that go
    (r"outer product|register values|from a register", ("shared_pipe",)),
    (r"double.buffer|two shared buffers|overlap", ("barrier", "memory_latency")),
    (
        r"shared[- ]memory tile|tiles? of|staged|tile scan|tiled",
        ("memory_latency", "bytes_in_flight", "dram_excess", "lsu_queue"),
    ),
    # privatizing moves the atomics from the L2 into shared memory; replicating a
    # private histogram (several copies per block) spreads the lanes of the shared
    # atomics and leaves the block's global merge as it was: histogram v2's "8 padded
    # sub-histograms per block" expected fewer global atomics in L2 from "sub-histogram"
    (r"privati|shared-memory histogram", ("global_atomics",)),
    # one atomic for a warp's or a block's elements: fewer of them in the L2
    (r"one atomic\w* (per|by)|aggregat", ("global_atomics",)),
    (r"in flight|issued up front", ("bytes_in_flight",)),
    (r"sub-histograms|replicat|copies per block", ("shared_atomics", "bank_conflicts")),
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


REGRESSION = r"deliberate regression|deliberately slow"  # an idea meant to cost time

# A launch's cause whose remedy shows in a step as one of its factors.
STEP_FACTOR_OF: dict[str, tuple[str, ...]] = {"low_occupancy": ("occupancy",)}
# A step's factor that is an expected mechanism under another name: fewer, wider
# requests and fuller lanes are the instruction count named by their cause; fewer
# DRAM bytes are the excess traffic removed; loads and stores together are either.
SAME_AS: dict[str, tuple[str, ...]] = {
    WIDER: (COUNT,),
    LANES: (COUNT,),
    # fewer global loads are fewer of the instructions a reuse sets out to save
    LOADS_FACTOR: (COUNT,),
    "dram_bytes": ("dram_excess", "bytes_in_flight"),
    "uncoalesced_access": ("uncoalesced_loads", "uncoalesced_stores"),
    "grid_too_small": ("occupancy",),
    # the same load waits, named so at 80% of the copy bandwidth or more
    "dram_bandwidth": ("bytes_in_flight",),
}
# Mechanisms that need a kind of instruction or traffic on the previous launch.
NEEDS: dict[str, tuple[str, ...]] = {
    "bank_conflicts": ("shared_ld_inst", "shared_st_inst", "shared_atom_inst"),
    "shared_pipe": ("shared_ld_inst", "shared_st_inst", "shared_atom_inst"),
    "shared_atomics": ("shared_atom_inst",),
    "local_memory": ("local_sectors", col.SPILL_BYTES),
    "global_atomics": ("l2_atomic_sectors",),
    "barrier": ("stall_barrier",),
}


def applies(
    mechanism: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    regression: bool = False,
) -> bool:
    """Whether the previous launch (or a regression's new one) has ``mechanism``.

    Reduction ``v4`` adds atomics to ``v3``, which had none: none to expect fewer of.
    """
    keys = NEEDS.get(mechanism)
    if not keys:
        return True
    rows = (before, after) if regression else (before,)
    values = [num(r, k) for r in rows for k in keys]
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


def _expected(
    idea: str,
    previous: Mapping[str, Any],
    after: Mapping[str, Any],
    regression: bool = False,
) -> tuple[list[str], str]:
    """The mechanisms a step's idea names, and the previous largest cause.

    The previous largest cause is said beside them, not expected where the idea does
    not name it (SGEMM ``v6``'s float4 loads "expected" to cut ``v5``'s dispatch).
    """
    expected = [
        m for m in expected_mechanisms(idea) if applies(m, previous, after, regression)
    ]
    top = causes(previous)
    prev = top[0].mechanism if top else ""
    # the remedy of a launch with too few warps is a step's occupancy factor
    for mechanism in [f for m in expected for f in STEP_FACTOR_OF.get(m, ())]:
        if mechanism not in expected:
            expected.append(mechanism)
    return expected, prev


# An expected mechanism's own counter, and which way it moves where the mechanism
# shrinks: fuller lanes per warp instruction, fewer conflict replays, fewer local or
# L2 atomic sectors, more resident warps. (mechanism, analysis column, +1 rises /
# -1 falls, message, its best value); lanes: not predicated off (:func:`active_lanes`)
OWN_COUNTER: tuple[tuple[str, str, float, str, float], ...] = (
    (LANES, "lanes_per_inst", 1.0, "against_lanes", 31.0),
    ("bank_conflicts", "smem_conflict_share", -1.0, "against_conflicts", 0.01),
    ("local_memory", "local_sectors", -1.0, "against_local", 0.0),
    ("global_atomics", "l2_atomic_sectors", -1.0, "against_atomics", 0.0),
    ("low_occupancy", "achieved_occupancy_pct", 1.0, "against_occupancy", 90.0),
    ("occupancy", "achieved_occupancy_pct", 1.0, "against_occupancy", 90.0),
    ("instruction_count", "inst_executed", -1.0, "against_instructions", 0.0),
)  # the last value: where the counter starts at its best, there is nothing to say
MOVED = 0.02  # relative change of an own counter that counts as its way
# own counters said only where they went the other way, not where they stayed: a step
# may cut the waits at the same instruction count (hotatomic v1's shuffles doubled
# it, 1.97 M -> 3.93 M issued warp instructions, where fewer were expected)
ROSE_ONLY = frozenset({"instruction_count"})


def against(
    expected: list[str], previous: Mapping[str, Any], after: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The expected mechanisms whose own counter did not move the expected way.

    Reduction ``v1``'s sequential addressing was expected to leave fewer lanes idle;
    its lanes not predicated off per warp instruction went 20.3 -> 20.0 of 32
    (``smsp__thread_inst_executed_pred_on_per_inst_executed.ratio``), so the step's
    "as expected" (its instruction count fell) does not hold for them.
    """
    out: list[dict[str, Any]] = []
    said: set[str] = set()
    for mechanism, column, way, key, best in OWN_COUNTER:
        if mechanism not in expected or key in said:
            continue
        x, y = (
            (active_lanes(previous), active_lanes(after))
            if mechanism == LANES
            else (num(previous, column), num(after, column))
        )
        if not (ok(x) and ok(y)) or max(abs(x), abs(y)) == 0 or way * (x - best) >= 0:
            continue  # unmeasured, or already at its best (vecadd at 94% occupancy)
        if way * (y - x) > MOVED * max(abs(x), abs(y)):
            continue
        if mechanism in ROSE_ONLY and -way * (y - x) <= MOVED * max(abs(x), abs(y)):
            continue
        scale = 100.0 if column == "smem_conflict_share" else 1.0
        out.append(msg(key, before=scale * x, after=scale * y))
        said.add(key)
    return out


def expectation(
    idea: str,
    previous: Mapping[str, Any],
    after: Mapping[str, Any],
    ranked: list[Finding],
    total: float,
    library: bool = False,
) -> Finding:
    """Expected (from the idea) against observed; of a ``library`` variant nothing.

    A mechanism the idea names is expected only where one of the two launches can
    have it (:func:`applies`: no shared-memory conflicts expected of kernels without
    shared memory); a library's code the tool cannot see (:func:`_library_record`).
    """
    if library:
        return _library_record(previous, ranked)
    regression = bool(re.search(REGRESSION, idea, flags=re.IGNORECASE))
    expected, prev = _expected(idea, previous, after, regression)
    way = 1.0 if regression else -1.0  # helped: moved the time the intended way
    helped = [
        f.rule
        for f in ranked
        if _meets(f.rule, expected) and ok(f.share) and way * f.share * total > 0
    ]
    observed = ranked[0].rule if ranked else ""
    faster, done = total < 0, carried_out(expected, previous, after)
    if observed == "step_unchanged":
        verdict = "expect_unchanged_done" if done else "expect_unchanged"
    elif observed == "step_not_in_counters":
        verdict = "expect_not_in_counters"
    elif not expected:
        verdict = "expect_unknown"
    elif regression:
        verdict = "expect_shown" if helped and not faster else "expect_not_shown"
    elif helped and faster and against(expected, previous, after):
        verdict = "expect_met_against"  # its counters contradict another expectation
    elif helped:
        verdict = "expect_met" if faster else "expect_offset"
    else:
        verdict = "expect_other" if faster else "expect_not_met"
    return Finding(
        "expected_observed",
        params=msg(
            "meant_observed" if regression else "expected_observed",
            expected=[msg(f"mech_{m}") for m in expected] or [msg("mech_unknown")],
            previous=msg(f"mech_{prev}") if prev else msg("mech_unknown"),
            observed=msg(f"mech_{observed}") if observed else msg("mech_unknown"),
            regression=regression,
            verdict=msg(
                verdict,
                helped=[msg(f"mech_{m}") for m in helped],
                rest=_rest(expected, helped, previous, after) if helped else "",
                observed=msg(f"mech_{observed}") if observed else msg("mech_unknown"),
                done=done,
            ),
            against="" if regression else _against_message(expected, previous, after),
        ),
        metric="expected: " + ", ".join(expected),
        evidence="observed: " + observed,
    )


def _rest(
    expected: list[str],
    helped: list[str],
    previous: Mapping[str, Any],
    after: Mapping[str, Any],
) -> dict[str, Any] | str:
    """The expected mechanisms no credited part is, each with what of it was done.

    SGEMM ``v6``'s float4 loads: load sectors per request 4 -> 16, and no part of
    its time is the loads' (its waits were not on them); its instruction count,
    2.9% fewer, shows no change of its own. ``""`` where none is left.
    """
    unseen = [m for m in expected if not any(_meets(h, [m]) for h in helped)]
    if not unseen:
        return ""
    # each change the counters show said once, and not where a credited one has it
    items, said = [], carried_out(helped, previous, after)
    for m in unseen:
        done = [d for d in carried_out([m], previous, after) if d not in said]
        said += done
        items.append(
            msg(
                "expect_unseen",
                mechanism=msg(f"mech_{m}"),
                done=msg("expect_rest_done", done=done) if done else "",
            )
        )
    return msg("expect_rest", unseen=items)


def _library_record(previous: Mapping[str, Any], ranked: list[Finding]) -> Finding:
    """A library step's record: nothing expected, what its counters show most.

    SGEMM ``v8_torch_matmul`` read "Expected: dispatch stalls ... As expected" from
    stall ratios within 0.1 cycle per instruction of ``v7``'s.
    """
    top = causes(previous)
    observed = ranked[0].rule if ranked else ""
    return Finding(
        "expected_observed",
        params=msg(
            "expected_library",
            previous=msg(f"mech_{top[0].mechanism}") if top else msg("mech_unknown"),
            observed=msg(f"mech_{observed}") if observed else msg("mech_unknown"),
            library=True,
        ),
        metric="expected: ",
        evidence="observed: " + observed,
    )


def _against_message(
    expected: list[str], previous: Mapping[str, Any], after: Mapping[str, Any]
) -> dict[str, Any] | str:
    """The expectations the counters contradict, as a clause ('' where none)."""
    found = against(expected, previous, after)
    return msg("against_some", items=found) if found else ""
