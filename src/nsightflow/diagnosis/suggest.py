"""What to try next in each variant the author owns: suggestions bounded, checked and scored.

A suggestion names a variant, a size, the mechanism it attacks and the change in the
kernel's terms. It is made only where all of these hold:

- the variant's code is the author's: a library variant (cuBLAS through
  ``torch.matmul``, CuPy; :attr:`nsightflow.family.model.Variant.is_library`) is the
  line to reach, never a kernel to tune;
- the change is not already in the variant: the compiler facts
  (:mod:`nsightflow.tools.compiler_facts`) and the counters are read first, so a
  kernel whose loads are ``LDG.E.128`` with two in flight and 75% of its warps
  resident is not told to use float4, more loads in flight or more warps
  (:func:`nsightflow.diagnosis.advice.already_done`);
- its expected gain is bounded and above the noise: the mechanism's own gain
  (``1 / (1 - share)`` of the launch it takes; for a grid smaller than the GPU, SMs
  over blocks) capped by ``time / floor``, where the floor is the ideal time at the
  measured ceiling plus the per-launch fixed cost the family measured
  (:func:`fixed_cost`), and larger than ``1 + max(2%, IQR / median)`` of the timing;
- every measured size is looked at: a grid of fewer blocks than SMs is named at each
  size where it happens (from ncu's launch at profiled sizes, from the manifest's
  grid expression at the others).

:func:`score` then checks the advice against the ladder: where the next step's
measured primary change is one of the previous variant's suggestions at that size,
the suggestion's expected gain is set beside the step's achieved speedup. A change
matches a suggestion of the same mechanism or one its remedy names (:data:`MATCHES`:
"more bytes in flight" is carried out by wider accesses, more loads in flight or
more warps).
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.diagnosis.advice import already_done, fix_message
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import msg
from nsightflow.diagnosis.stand import stand
from nsightflow.errors import ManifestError
from nsightflow.family.expr import evaluate

NOISE_MIN = 0.02  # a gain must exceed 1 + max(2%, IQR / median) of the timing
MAX_ITEMS = 3  # suggestions per variant and size that count as "top"
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
}


@dataclass(frozen=True)
class Suggestion:
    """One thing to try in one variant at one size, with its bounded gain."""

    variant: str
    size: int
    kind: str  # the mechanism it attacks (``mech_<kind>``)
    gain: float  # expected, bounded: min(mechanism_gain, time / floor)
    mechanism_gain: float
    time_us: float
    floor_us: float
    noise: float  # the gain it must exceed, 1 + max(2%, IQR / median)
    fix: Mapping[str, Any] = field(default_factory=dict)  # the change, a message
    share: float = math.nan  # % of the launch the mechanism takes


def fixed_cost(table: pd.DataFrame) -> float:
    """The per-launch fixed cost in us: what no kernel of the family gets under.

    The fastest correct launch at the family's smallest measured size, less its ideal
    time at the measured ceiling (``roof_time_us``): launch latency, ramp-up and tail
    that do not shrink with the work. An upper estimate, so the floor it makes is one
    a kernel may reach, not one below which a suggestion promises gains.
    """
    need = {"status", "time_median_us", "roof_time_us", "size"}
    if table.empty or not need <= set(table.columns):
        return 0.0
    good = table[
        (table["status"] == Status.OK)
        & table["time_median_us"].notna()
        & table["roof_time_us"].notna()
    ]
    if good.empty:
        return 0.0
    small = good[good["size"] == good["size"].min()]
    return max(0.0, float((small["time_median_us"] - small["roof_time_us"]).min()))


def floor_us(row: Mapping[str, Any], fixed: float) -> float:
    """The time a launch cannot beat: ideal time at its ceiling plus the fixed cost."""
    roof = num(row, "roof_time_us")
    return roof + fixed if ok(roof) else math.nan


def noise(row: Mapping[str, Any]) -> float:
    """The gain a suggestion must exceed to be above the timing's spread."""
    t, iqr = num(row, "time_median_us"), num(row, "time_iqr_us")
    spread = iqr / t if ok(iqr) and ok(t) and t > 0 else 0.0
    return 1.0 + max(NOISE_MIN, spread)


def grid_blocks(row: Mapping[str, Any], variant: Mapping[str, Any]) -> float:
    """Blocks of the variant's (first) launch at the row's size (NaN: not known).

    ncu's count where the size was profiled, else the manifest's grid expressions at
    the variant's compiled parameters.
    """
    measured = num(row, "grid_blocks")
    if ok(measured) and measured > 0:
        return measured
    grid = variant.get("grid") or []
    if not grid:
        return math.nan
    names = {"n": int(row["size"]), **(variant.get("params") or {})}
    try:
        return float(math.prod(int(evaluate(str(g), names)) for g in grid))
    except (ManifestError, TypeError, ValueError):
        return math.nan


def _bounded(
    row: Mapping[str, Any], mech: float, fixed: float
) -> tuple[float, float, float] | None:
    """(gain, floor, noise) where the bounded gain is above the noise, else None."""
    t, floor = num(row, "time_median_us"), floor_us(row, fixed)
    if not ok(t) or not ok(mech) or not mech > 1:
        return None
    gain = min(mech, t / floor) if ok(floor) and floor > 0 else mech
    limit = noise(row)
    return (gain, floor, limit) if gain > limit else None


def grid_suggestion(
    row: Mapping[str, Any],
    variant: Mapping[str, Any],
    sms: float,
    fixed: float,
    family: Mapping[str, Any],
) -> Suggestion | None:
    """More blocks at a size where the grid has fewer blocks than the GPU has SMs."""
    blocks = grid_blocks(row, variant)
    if not ok(blocks) or not ok(sms) or not 0 < blocks < sms:
        return None
    found = _bounded(row, sms / blocks, fixed)
    if found is None:
        return None
    gain, floor, limit = found
    return Suggestion(
        str(row["variant"]),
        int(row["size"]),
        "grid_too_small",
        gain,
        sms / blocks,
        num(row, "time_median_us"),
        floor,
        limit,
        grid_fix(variant, family, int(blocks), int(sms)),
        100.0 * (1.0 - blocks / sms),
    )


def grid_fix(
    variant: Mapping[str, Any], family: Mapping[str, Any], blocks: int, sms: int
) -> dict[str, Any]:
    """The grid fix in the kernel's terms: its tile, and split-K for a k loop."""
    params = variant.get("params") or {}
    tile = (
        msg("advice_tile", bm=params["BM"], bn=params["BN"])
        if "BM" in params and "BN" in params
        else msg("advice_tile_none")
    )
    k_loop = "n**3" in str(family.get("flops", "")).replace(" ", "")
    return msg(
        "advice_fix_grid_k" if k_loop else "advice_fix_grid",
        blocks=blocks,
        sms=sms,
        idle=round(100 * (1 - blocks / sms)),
        tile=tile,
    )


def limiter_suggestion(
    row: Mapping[str, Any], compiled: Mapping[str, Any], fixed: float
) -> Suggestion | None:
    """The cause that limits the launch now, where its remedy is not already there."""
    found = stand(row) if row.get("profiled") else None
    limiter = found.params.get("limiter") if found is not None else None
    if not isinstance(limiter, Mapping):
        return None
    label = limiter.get("label")
    kind = str(label.get("@", "")).removeprefix("mech_") if label else ""
    share = float(limiter.get("share") or math.nan)
    if not kind or kind == "grid_too_small" or not ok(share) or share >= 100:
        return None
    if already_done(kind, row, compiled):
        return None
    mech = 1.0 / (1.0 - share / 100.0)
    bounded = _bounded(row, mech, fixed)
    if bounded is None:
        return None
    gain, floor, limit = bounded
    fix = fix_message(kind, row, compiled)
    if found is not None and found.rule == "at_vendor_rate":
        # at the library's rate the last few percent are the library's own tricks
        fix = msg("advice_fix_vendor_rate", fix=fix)
    return Suggestion(
        str(row["variant"]),
        int(row["size"]),
        kind,
        gain,
        mech,
        num(row, "time_median_us"),
        floor,
        limit,
        fix,
        share,
    )


HOT_LINE_SHARE = 0.5  # a line holding this share of the samples is the launch's
# limiters that, where the hot line is an atomic's, are that atomic's waits
ATOMIC_WAITS = frozenset({"global_atomics", "memory_latency", "lsu_queue"})


def atomic_suggestion(
    row: Mapping[str, Any],
    compiled: Mapping[str, Any],
    hot: Mapping[str, Any] | None,
    fixed: float,
) -> Suggestion | None:
    """Fewer atomics on the hot address, where the hottest line is an atomic's.

    Atomics that serialize on few addresses (one L2 slice each) show as one line
    holding most of the launch's samples, its SASS a global ``RED``/``ATOM``; its
    samples are the launch's share that line takes. The remedy names what nvcc did:
    with ``REDUX`` beside the ``RED`` the warp's sum is already taken.
    """
    if hot is None or not int(compiled.get("atomics") or 0):
        return None
    share = float(hot.get("share") or 0.0)
    if "global_atomic" not in str(hot.get("access") or "") or share < HOT_LINE_SHARE:
        return None
    mech = 1.0 / max(1.0 - share, 1e-3)
    bounded = _bounded(row, mech, fixed)
    if bounded is None:
        return None
    gain, floor, limit = bounded
    key = (
        "advice_fix_atomics_aggregated"
        if compiled.get("atomics_aggregated")
        else "advice_fix_atomics"
    )
    return Suggestion(
        str(row["variant"]),
        int(row["size"]),
        "hot_atomics",
        gain,
        mech,
        num(row, "time_median_us"),
        floor,
        limit,
        msg("advice_fix_hot_line", line=int(hot["line"]), fix=msg(key)),
        100.0 * share,
    )


def variant_suggestions(
    rows: Sequence[Mapping[str, Any]],
    variant: Mapping[str, Any],
    sms: float,
    fixed: float,
    family: Mapping[str, Any],
    hot: Mapping[int, Mapping[str, Any]] | None = None,
) -> list[Suggestion]:
    """Every suggestion for one variant over its measured sizes, by size then gain.

    Args:
        rows: The variant's analysis rows, one per measured size.
        variant: Its ``context.json`` entry (``library``, ``compiler``, grid).
        sms: The GPU's SM count.
        fixed: The family's fixed cost per launch, us (:func:`fixed_cost`).
        family: The family's ``context.json`` entry (its ``flops`` formula).
        hot: Per size, the variant's hottest source line (a ``hotspots.csv`` row).
    """
    if variant.get("library") or variant.get("status") != Status.OK:
        return []
    compiled = variant.get("compiler") or {}
    out: list[Suggestion] = []
    for row in rows:
        if row.get("status") != Status.OK or not ok(num(row, "time_median_us")):
            continue
        line = (hot or {}).get(int(row["size"]))
        found = [
            grid_suggestion(row, variant, sms, fixed, family),
            atomic_suggestion(row, compiled, line, fixed),
            limiter_suggestion(row, compiled, fixed),
        ]
        ranked = sorted((s for s in found if s), key=lambda s: -s.gain)
        if any(s.kind == "hot_atomics" for s in ranked):
            # the waits at the atomic's line are the atomics': one suggestion
            ranked = [s for s in ranked if s.kind not in ATOMIC_WAITS]
        out += ranked[:MAX_ITEMS]
    return out


def step_scores(
    suggestions: list[Suggestion], primary: str
) -> tuple[Suggestion | None, int]:
    """The suggestion of the previous variant the step's primary change matches.

    Returns:
        (the matching suggestion or None, its rank among the size's suggestions,
        1-based; 0 where none matches).
    """
    ranked = sorted(suggestions, key=lambda s: -s.gain)[:MAX_ITEMS]
    for rank, s in enumerate(ranked, start=1):
        if primary == s.kind or primary in MATCHES.get(s.kind, frozenset()):
            return s, rank
    return None, 0
