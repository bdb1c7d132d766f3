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
  (:func:`fixed_cost`), and never above the fastest time any variant of the family
  measured at that size (:func:`fastest`: at n = 4096 cuBLAS takes 2,673 us where
  the ceiling and fixed cost give 2,724 us, so the floor is cuBLAS's 2,673 us), and
  larger than ``1 + max(2%, IQR / median)`` of the timing;
- every measured size is looked at: a grid of fewer blocks than SMs is named at each
  size where it happens (from ncu's launch at profiled sizes, from the manifest's
  grid expression at the others), and a 2-D stencil that streams its grid through
  DRAM is told to fuse sweeps (temporal blocking, :func:`sweeps_per_pass`) at each
  size whose grid does not fit in the L2, however close to the copy bandwidth.

Whether the next step carried a suggestion out is :mod:`nsightflow.diagnosis.scoring`'s.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis import limit_cause as lc
from nsightflow.diagnosis import serial
from nsightflow.diagnosis.advice import (
    STENCIL_AI,
    TENSOR_OK,
    already_done,
    atomics_fix,
    blocks_per_atomic,
    compiled_facts,
    fix_message,
    grid_fix,
    idle_issue_gain,
    vendor_rate_fix,
)
from nsightflow.diagnosis.floors import Bound, bounded, noise
from nsightflow.diagnosis.ideal_gap import gap_bound, ideal_gap
from nsightflow.diagnosis.limiter import run_limit
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.one_launch import finish_launches
from nsightflow.diagnosis.per_launch import LATER_LAUNCH, launch_rows, run_causes
from nsightflow.diagnosis.record import msg
from nsightflow.diagnosis.stand import stand
from nsightflow.diagnosis.variant_facts import grid_blocks, source_text

MAX_ITEMS = 3  # suggestions per variant and size that count as "top"


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
    floor_by: str = ""  # the variant whose measured time is the floor ("": the model)
    model_us: float = math.nan  # ideal time at the ceiling plus the fixed cost
    floor_n: int = 0  # the size floor_by measured the floor at (0: this size)


def suggestion(
    row: Mapping[str, Any],
    kind: str,
    mech: float,
    bound: Bound,
    fix: Mapping[str, Any],
    share: float,
) -> Suggestion:
    """A suggestion for the row's variant and size from its bounded gain."""
    return Suggestion(
        str(row[col.VARIANT]),
        int(row[col.SIZE]),
        kind,
        bound.gain,
        mech,
        num(row, col.TIME_MEDIAN_US),
        bound.floor,
        bound.noise,
        fix,
        share,
        bound.floor_by,
        bound.model,
        bound.floor_n,
    )


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
    found = bounded(row, sms / blocks, fixed)
    if found is None:
        return None
    fix = grid_fix(variant, family, int(blocks), int(sms))
    share = 100.0 * (1.0 - blocks / sms)
    return suggestion(row, "grid_too_small", sms / blocks, found, fix, share)


def limiter_suggestion(
    row: Mapping[str, Any],
    compiled: Mapping[str, Any],
    fixed: float,
    source: str = "",
    rows: Sequence[Mapping[str, Any]] = (),
    launches: Sequence[Mapping[str, Any]] = (),
) -> Suggestion | None:
    """The cause that limits the launch now, where its remedy is not already there.

    Where a unit runs near its peak, the cause is that unit's
    (:func:`~nsightflow.diagnosis.limit_cause.limit_cause`), said with the unit's
    metric; else the launch's largest cost. A run of several ``launches`` is limited
    by its longest launch's unit, named with its kernel as the brief names it
    (:func:`~nsightflow.diagnosis.limiter.run_limit`): the run's row averages the
    units over its launches, and read reduction ``v0``'s L1/shared at 61% where its
    ``reduce_v0`` runs it at 80%. Its causes are the run's launch by launch
    (:func:`~nsightflow.diagnosis.per_launch.run_causes`). A cause whose remedy
    cannot relieve the unit (:func:`~nsightflow.diagnosis.limit_cause.advisable`:
    more bytes in flight against ``v0``'s L1/shared 80%) is not advised. A launch at
    its ideal DRAM bytes says how much of its time above the ideal is fixed cost.
    """
    run = run_causes(row, launches) if row.get("profiled") else []
    now = run_limit(row, launches)
    found = stand(row, run, now) if row.get("profiled") else None
    limiter = found.params.get("limiter") if found is not None else None
    if not isinstance(limiter, Mapping):
        return None
    label = limiter.get("label")
    kind = str(label.get("@", "")).removeprefix("mech_") if label else ""
    share = float(limiter.get(col.SHARE) or math.nan)
    unit = lc.limit_cause(run, now) if now is not None else None
    if unit is not None:
        kind, share = unit.mechanism, 100.0 * unit.share
    if not ok(share) or share >= 100 or not lc.advisable(kind, lc.unit_of(now)):
        return None  # the remedy must fit the unit it is said against
    if not kind or kind == "grid_too_small":
        return None
    mech = 1.0 / (1.0 - share / 100.0)
    bound = bounded(row, mech, fixed)
    if bound is None or already_done(kind, row, compiled, bound.gain):
        return None
    fix = fix_message(kind, row, compiled, bound.gain)
    if fix.get("@") == "fix_issue_bound_work_fp32":
        mech = min(mech, idle_issue_gain(row))  # only the idle issue cycles are left
        bound = bounded(row, mech, fixed)
        if bound is None:
            return None
    if fix.get("@") == "fix_dram_bandwidth_ideal":  # or its gap is per launch
        fix, bound = gap_bound(fix, row, rows, fixed, mech)
        if bound is None:
            return None
    elif str(fix.get("@", "")).startswith("fix_dram_bandwidth_ideal"):
        fix = ideal_gap(fix, row, rows, fixed)
    if unit is not None and now is not None and lc.said_against(kind, lc.unit_of(now)):
        fix = lc.at_limit(fix, now)
    if found is not None and found.rule == "at_vendor_rate":
        # at the library's rate the last few percent are the library's own tricks
        fix = vendor_rate_fix(fix, source, bool(compiled.get(TENSOR_OK, True)), row)
    return suggestion(row, kind, mech, bound, fix, share)


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
    samples are the launch's share that line takes. The gain is the launch without
    what the next aggregation removes at the family's slice rate
    (:func:`~nsightflow.diagnosis.serial.remedy_share`: hotatomic ``v0``, about 32x,
    where the line's share said 4.03x and the step achieved 31.48x), else without the
    line's share. The remedy names what nvcc did:
    with an elected lane (``REDUX`` of the values or ``POPC`` of the lanes) beside
    the ``RED`` the warp's sum is already taken.
    """
    if hot is None or not int(compiled.get("atomics") or 0):
        return None
    share = float(hot.get(col.SHARE) or 0.0)
    if "global_atomic" not in str(hot.get(col.ACCESS) or "") or share < HOT_LINE_SHARE:
        return None
    removed, k = serial.remedy_share(row, bool(compiled.get("atomics_aggregated")))
    cut = removed if ok(removed) else share  # what the remedy removes, else the line
    mech = 1.0 / max(1.0 - cut, 1e-3)
    bound = bounded(row, mech, fixed)
    if bound is None:
        return None
    fix = msg(
        "advice_fix_hot_line",
        line=int(hot[col.LINE]),
        fix=atomics_fix(compiled),
        model=serial.fewer_message(row, k, removed),
    )
    return suggestion(row, "hot_atomics", mech, bound, fix, 100.0 * share)


SERIAL_SHARE = 1 / 3  # of the launch one-address atomics must take to be its cause
SERIAL_MAX = 1.25  # above: more atomics than one address takes, so several addresses


def serial_atomics(
    row: Mapping[str, Any], compiled: Mapping[str, Any], fixed: float
) -> Suggestion | None:
    """Atomics issued once per warp on one address, whose count explains the launch.

    Where each warp issues one atomic to a warp-uniform address (nvcc's own
    aggregation, or the source's shuffles or ballot), those atomics queue at the one
    L2 slice that holds the address. The time they take is the busiest slice's atomic
    sectors over the rate the family's launches reached on their slice
    (:func:`nsightflow.diagnosis.serial.serial_us`: hotatomic ``v0``'s 4,194,304 in
    7,362 us, 570 per us); without such a launch, over the SM clock (at most one per
    clock, a lower bound of the time). Where that is at least :data:`SERIAL_SHARE` of
    ncu's duration (and not above :data:`SERIAL_MAX` of it, which one address could
    not take), the atomics, not the loads, are the cause. On the H200: hotatomic
    ``v1``'s 131,072 on its slice need 230 us of its 232 us, ``v2``'s 16,384 28.7 of
    31.3 us; counted as all 197,080 of ``v1``'s L2 atomic sectors at one per clock
    they were 99.5 us (43%), where ``v0`` and ``v1`` both run their slice at 570 per us.
    """
    per_warp = compiled.get("atomics_aggregated") or int(
        compiled.get("shuffles") or 0
    ) + int(compiled.get("ballots") or 0)
    launch = num(row, "ncu_time_us")
    if not (int(compiled.get("atomics") or 0) and per_warp and ok(launch)):
        return None
    least, model = serial.serial_model(row)
    share = least / launch if ok(least) and launch > 0 else math.nan
    if not (ok(share) and SERIAL_SHARE <= share <= SERIAL_MAX):
        return None
    removed, k = serial.remedy_share(row, True)  # one per block, where not yet
    cut = removed if ok(removed) else min(share, 0.99)
    mech = 1.0 / (1.0 - cut)  # the launch without the atomics' time that goes
    bound = bounded(row, mech, fixed)
    if bound is None:
        return None
    per_block = blocks_per_atomic(row)
    fix = msg(
        "advice_fix_serial_atomics",
        unit=msg("atomic_unit_block" if ok(per_block) else "atomic_unit_warp"),
        hot=serial.hot_sectors(row),
        count=num(row, "l2_atomic_sectors"),
        model=model,
        least=least,
        pct=100 * min(share, 1.0),
        fix=msg("advice_fix_atomics_per_block", per=per_block)
        if ok(per_block)
        else atomics_fix(compiled),
        fewer=msg("advice_fewer_per_block", k=k, pct=100 * removed) if ok(k) else "",
    )
    return suggestion(row, "hot_atomics", mech, bound, fix, 100 * min(share, 1.0))


SWEEPS = 2  # sweeps fused per pass that the temporal-blocking bound is stated for
SWEEP_FROM_PCT = 80.0  # % of the copy bandwidth from which fewer sweeps is what is left


def sweeps_per_pass(
    row: Mapping[str, Any], variant: Mapping[str, Any], l2_bytes: float, fixed: float
) -> Suggestion | None:
    """Several sweeps per pass, where a 2-D stencil streams through DRAM.

    A pass over a 2-D grid (two grid dimensions grow with n) that combines several
    neighbours per point (ideal intensity at least :data:`STENCIL_AI`) and whose
    grid does not fit in the L2 pays DRAM time for every sweep. However close to the
    copy bandwidth it is (Jacobi-2D v5: 97% at n = 8192), only fewer bytes per sweep
    go faster, and for a sweep that is repeated on its own output that is temporal
    blocking. It is suggested from :data:`SWEEP_FROM_PCT` of the copy bandwidth:
    below, the same pass can still move its bytes faster (the other suggestions),
    which is the smaller change. :data:`SWEEPS` sweeps per pass halve the DRAM bytes per sweep. Its
    bound: the transfer at the copy bandwidth (``time * pct_of_copy_bw``) shrinks by
    ``1 - 1/SWEEPS``; the floor per sweep is the larger of the halved transfer and
    the FP32 time, plus the fixed cost.
    """
    t, ideal = num(row, col.TIME_MEDIAN_US), num(row, "ideal_bytes")
    grid = [g for g in variant.get("grid") or [] if "n" in str(g)]
    if row.get(col.REGIME) != "memory" or len(grid) < 2 or not ok(t):
        return None
    if not (ok(ideal) and ok(l2_bytes) and ideal > l2_bytes):
        return None
    if not num(row, "ai_ideal") >= STENCIL_AI:
        return None
    if not num(row, col.PCT_OF_COPY_BW) >= SWEEP_FROM_PCT:
        return None
    # at or above the measured copy bandwidth (a run at 100.5% of it: the ceiling's
    # own spread) the whole launch is transfer
    transfer = min(t, t * num(row, col.PCT_OF_COPY_BW) / 100.0)
    compute = t * num(row, col.PCT_OF_FP32_PEAK) / 100.0
    if not ok(transfer):
        return None
    saved = transfer * (1.0 - 1.0 / SWEEPS)
    floor = max(transfer / SWEEPS, compute if ok(compute) else 0.0) + fixed
    gain = min(t / (t - saved), t / floor)
    if not gain > noise(row):
        return None
    fix = msg(
        "advice_fix_sweeps",
        sweeps=SWEEPS,
        mb=ideal / 1e6,
        l2_mb=l2_bytes / 1e6,
        pct=num(row, col.PCT_OF_COPY_BW),
    )
    bound = Bound(gain, floor, noise(row), "")
    return suggestion(row, "temporal_blocking", t / (t - saved), bound, fix, math.nan)


def finish_suggestion(
    row: Mapping[str, Any], runs: Sequence[Mapping[str, Any]], fixed: float
) -> Suggestion | None:
    """One launch, where the run's later launches are finishing passes."""
    found = finish_launches(row, runs, fixed) if row.get("profiled") else None
    return suggestion(row, LATER_LAUNCH, *found) if found is not None else None


def variant_suggestions(
    rows: Sequence[Mapping[str, Any]],
    variant: Mapping[str, Any],
    sms: float,
    fixed: float,
    family: Mapping[str, Any],
    hot: Mapping[int, Mapping[str, Any]] | None = None,
    l2_bytes: float = math.nan,
    launches: Mapping[str, Any] | None = None,
) -> list[Suggestion]:
    """Every suggestion for one variant over its measured sizes, by size then gain.

    Args:
        rows: The variant's analysis rows, one per measured size.
        variant: Its ``context.json`` entry (``library``, ``compiler``, grid).
        sms: The GPU's SM count.
        fixed: The family's fixed cost per launch, us (:func:`fixed_cost`).
        family: The family's ``context.json`` entry (its ``flops`` formula).
        hot: Per size, the variant's hottest source line (a ``hotspots.csv`` row).
        l2_bytes: The GPU's L2 size (ncu's device attribute; NaN: not known).
        launches: ``context.json``'s launches of each run (``launch_rows``).
    """
    if variant.get("library") or variant.get(col.STATUS) != Status.OK:
        return []
    source = source_text(variant)
    compiled = compiled_facts(variant, source, family)
    out: list[Suggestion] = []
    for row in rows:
        if row.get(col.STATUS) != Status.OK or not ok(num(row, col.TIME_MEDIAN_US)):
            continue
        line = (hot or {}).get(int(row[col.SIZE]))
        runs = launch_rows(launches or {}, row)
        found = [
            grid_suggestion(row, variant, sms, fixed, family),
            atomic_suggestion(row, compiled, line, fixed)
            or serial_atomics(row, compiled, fixed),
            limiter_suggestion(row, compiled, fixed, source, rows, runs),
            sweeps_per_pass(row, variant, l2_bytes, fixed),
            finish_suggestion(row, runs, fixed),
        ]
        ranked = sorted((s for s in found if s), key=lambda s: -s.gain)
        if any(s.kind == "hot_atomics" for s in ranked):
            # the waits at the atomic's line are the atomics': one suggestion
            ranked = [s for s in ranked if s.kind not in ATOMIC_WAITS]
        out += ranked[:MAX_ITEMS]
    return out
