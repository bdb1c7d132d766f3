"""Whether a step carried out a suggestion of its previous variant, and at which rank.

:func:`step_scores` checks the advice (:mod:`nsightflow.diagnosis.suggest`) against
the ladder: where the next step's measured primary change is one of the previous
variant's suggestions at that size, the suggestion's expected gain is set beside the
step's achieved speedup. A change matches a suggestion of the same mechanism or one
its remedy names (:data:`MATCHES`: "more bytes in flight" is carried out by wider
accesses, more loads in flight or more warps), where the step moved the suggestion's
own counter its remedy's way (:data:`REMEDY_COUNTER`). It reads the suggestions
after they are made and never feeds them, so it sits apart from the rules that make
them; :mod:`nsightflow.diagnosis.advice_rows` calls it for each step.
"""

from collections.abc import Mapping
from typing import Any

from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.suggest import MAX_ITEMS, Suggestion
from nsightflow.diagnosis.tried import Side, remedy_tried

PAID = 1.02  # a step paid where it was more than 2% faster ...
NO_CHANGE = "step_unchanged"  # ... and its own verdict is not "no measurable change"


def paid(achieved: float, change: str) -> bool:
    """Whether a scored step paid: faster by more than 2%, and by more than its noise.

    The step's primary change is its verdict's: a step within its timing noise
    (``step_unchanged``: reduction v3 at 2^24, -2.3% within 5.8%) did not pay, whatever
    its ratio, so the scorecard counts with the one noise model the report prints.
    """
    return ok(achieved) and achieved > PAID and change != NO_CHANGE


# The step changes (a step's primary rule) that carry out a suggestion of each kind:
# its remedy sentence names them. More bytes in flight is float4 (wider accesses),
# more independent loads (latency) or more warps (occupancy); fewer shared-memory or
# issued instructions per unit of work is register reuse (instruction count).
MATCHES: dict[str, frozenset[str]] = {
    "bytes_in_flight": frozenset(
        {"bytes_in_flight", "memory_latency", "wider_accesses", "occupancy"}
    ),
    "lsu_queue": frozenset({"bytes_in_flight", "wider_accesses", "instruction_count"}),
    "memory_latency": frozenset({"memory_latency", "bytes_in_flight", "occupancy"}),
    "uncoalesced_loads": frozenset({"wider_accesses", "dram_bytes"}),
    "shared_pipe": frozenset({"shared_pipe", "instruction_count", "mio_shuffle"}),
    "mio_shuffle": frozenset({"mio_shuffle", "instruction_count"}),
    "instruction_overhead": frozenset({"instruction_count", "issue_bound"}),
    "issue": frozenset({"instruction_count", "issue_bound"}),
    "issue_bound": frozenset({"instruction_count", "issue_bound"}),
    "low_occupancy": frozenset({"occupancy", "memory_latency"}),
    "dram_excess": frozenset({"dram_bytes"}),
    "global_atomics": frozenset({"global_atomics", "memory_latency"}),
    "hot_atomics": frozenset({"global_atomics", "memory_latency", "shared_atomics"}),
    "later_launch": frozenset({"launch_removed"}),
}


# The counter a suggestion's remedy moves, and the way: more warps resident for low
# occupancy, more blocks for a grid smaller than the GPU. A step whose primary change
# matches such a suggestion but moved its counter the other way did something else
# (SGEMM v7: its latency fell by double buffering while occupancy halved, 24% -> 12%,
# against v6's "cap the registers for more warps").
REMEDY_COUNTER: dict[str, str] = {
    "low_occupancy": "achieved_occupancy_pct",
    "grid_too_small": "grid_blocks",
}


def remedy_moved(
    kind: str, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> bool:
    """Whether the step moved the suggestion's own counter its remedy's way.

    True where the kind has no such counter or either side did not measure it.
    """
    key = REMEDY_COUNTER.get(kind)
    if key is None or before is None or after is None:
        return True
    a, b = num(before, key), num(after, key)
    return not (ok(a) and ok(b)) or b > a


def step_scores(
    suggestions: list[Suggestion],
    primary: str,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
) -> tuple[Suggestion | None, int]:
    """The suggestion of the previous variant the step's primary change carried out.

    A hit is judged on counters, not on the names of mechanisms alone: the step's
    primary change is the suggestion's mechanism or one its remedy names
    (:data:`MATCHES`), and the suggestion's own counter moved its way
    (:func:`remedy_moved`). Requiring the manifest's idea to name the primary
    change as well dropped true hits (SGEMM v5's shared-memory pipe under an idea
    that names the outer product), so the idea is not read here.

    Returns:
        (the matching suggestion or None, its rank among the size's suggestions,
        1-based; 0 where none matches).
    """
    for rank, s in enumerate(ranked(suggestions), start=1):
        if primary != s.kind and primary not in MATCHES.get(s.kind, frozenset()):
            continue
        if remedy_moved(s.kind, before, after):
            return s, rank
    return None, 0


def ranked(suggestions: list[Suggestion]) -> list[Suggestion]:
    """The size's top suggestions, largest gain first (rank 1 is the first)."""
    return sorted(suggestions, key=lambda s: -s.gain)[:MAX_ITEMS]


def step_tried(
    suggestions: list[Suggestion], before: Side, after: Side
) -> tuple[Suggestion | None, int, dict[str, Any] | None]:
    """The top suggestion whose remedy the step carried out, read from its diff.

    Where the step's primary change names no suggestion (reduction ``v3_vec4``: no
    change of ncu's time), what it changed may still be a suggestion's remedy: its
    loads went 32 -> 128 bits wide, ``v2_shuffle``'s float4 suggestion
    (:func:`nsightflow.diagnosis.tried.remedy_tried`). Its predicted gain then stands
    beside what the step achieved, a failed prediction included.

    Returns:
        (the suggestion or None, its rank, the change the step made as a message).
    """
    for rank, s in enumerate(ranked(suggestions), start=1):
        change = remedy_tried(s.kind, before, after)
        if change is not None:
            return s, rank, change
    return None, 0, None
