"""Where a variant stands, the plan after a baseline, the conclusion, the headline, the sweep.

- *Stand* (one per variant and size): its regime, the share of that regime's ceiling it
  reaches on the ideal work, what limits it now (its largest cause), and the stop
  condition: at >= 90% of the copy bandwidth a memory-bound kernel sits at the DRAM
  floor (only fewer bytes help); at >= 90% of the vendor library (or FP32 peak) a
  compute-bound one is at the roof (tensor cores or fewer FLOPs help).
- *Plan* (after each input's baseline): its causes as remedies, largest first, each
  with the time the launch would take without it (never below the roof).
- *Conclusion* and *headline*: :mod:`nsightflow.diagnosis.summary`.
- *Sweep*: a variant whose regime changes over the sizes, and drops of the regime's
  throughput between sizes (leaving the L2, where the working set crosses it).

Pure functions over analysis rows (dicts, stall reasons as ``stall_<reason>``).
"""

import itertools
import math
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.diagnosis import limiter
from nsightflow.diagnosis.advice import already_done, fix_message
from nsightflow.diagnosis.causes import Cause, causes, of_run
from nsightflow.diagnosis.efficiency import pipe_words
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.diagnosis.verdict import step_verdict
from nsightflow.i18n import size_text

AT_ROOF_PCT = 90.0  # the stop condition: % of the copy bandwidth or vendor library
FLOOR_BYTES = 1.2  # DRAM bytes / ideal bytes at which the DRAM floor is the ideal one
PLAN_ITEMS = 4  # remedies listed in a plan
SWEEP_DROP_PCT = 15.0  # a throughput drop between sizes worth a line


def regime_label(regime: str) -> dict[str, Any]:
    """The regime's name as a message."""
    return msg(f"regime_{regime or 'unknown'}")


def regime_key(row: Mapping[str, Any]) -> str:
    """The row's regime, the roofline's alone: one name for every sentence.

    ``memory``, ``compute`` or ``latency`` as classified from DRAM, L2 and the FP32
    rate (:mod:`nsightflow.analysis.regime`). A busy unit off the roofline (L1/shared,
    issue slots, a pipe, an atomics' L2 slice) is what limits the launch
    (:func:`nsightflow.diagnosis.limiter.limit`, the brief's *limits it now*), never
    its regime: SGEMM ``v0``-``v4`` at n = 4096 are latency-bound by the roofline
    (L2 <= 15%, FP32 <= 27%) and limited by L1/shared at 73-99% of its peak; a regime
    taken from the unit made reduction ``v0`` "bound by L1/shared" at its one profiled
    size and latency-bound at the timed ones around it.
    """
    return str(row.get(col.REGIME) or "")


def bound_name(row: Mapping[str, Any]) -> str:
    """The row's regime (:func:`regime_key`) as a table value."""
    return regime_key(row)


def regime_words(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row's regime (:func:`regime_key`) in words."""
    return regime_label(regime_key(row))


def regime_brief(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row's regime (:func:`regime_key`) in the brief's result sentence."""
    return regime_label(regime_key(row))


def regime_cell(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row's regime (:func:`regime_key`) in a table cell's few words."""
    return msg(f"regime_short_{regime_key(row)}")  # the caller has a regime to show


def rate(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row's throughput in its lens: GB/s (memory) or GFLOP/s (compute)."""
    if row.get("lens") == "compute":
        return msg("rate_gflops", gflops=_zero(num(row, col.GFLOPS)))
    return msg("rate_gbps", gbps=_zero(num(row, col.GBPS)))


def _zero(value: float) -> float:
    return value if ok(value) else 0.0


def _limiter(
    row: Mapping[str, Any],
    found: list[Cause] | None = None,
    now: Finding | None = None,
) -> tuple[dict[str, Any], dict[str, Any], Cause | None]:
    """The largest cause, and what limits it now as the brief's column says it.

    One source for both: the unit :func:`nsightflow.diagnosis.limiter.limit`
    finds closest to its peak; the largest stall group of its launch follows as
    where its time goes, not as a second limiter. ``found``: the run's causes
    where the caller has them launch by launch (a multi-kernel run: the baseline's
    own primary, not the combined row's). ``now``: the run's limiter where the caller
    has it launch by launch (:func:`nsightflow.diagnosis.limiter.run_limit`).
    """
    if found is None:
        found = causes(row) if row.get("profiled") else []
    if now is None:
        now = limiter.limit(row)
    unit = msg(f"cell_{now.rule}", **now.params) if now is not None else None
    if not found:
        said = unit or msg("limiter_unprofiled")
        return said, said, None
    top = found[0]
    key = "limiter_run" if of_run(found) else "limiter"
    cause = msg(key, label=msg(f"mech_{top.mechanism}"), share=100 * top.share)
    if unit is None:
        return cause, cause, top
    # the slice's share is its atomics' time at the family's rate, the cause's its
    # stall cycles' share (hotatomic v2: 92% and 42% of one launch): each says its basis
    key = "limiter_now_slice" if now and now.rule == "limit_l2_slice" else "limiter_now"
    return cause, msg(key, unit=unit, cause=cause), top


def stand(
    row: Mapping[str, Any],
    found: list[Cause] | None = None,
    now: Finding | None = None,
) -> Finding | None:
    """Where one variant stands at one size (None when it has no regime).

    ``found``: the run's causes launch by launch, where it has several
    (:func:`nsightflow.diagnosis.per_launch.run_causes`): reduction ``v0``'s largest
    cost is its one-block ``reduce_finish`` (25% of the run), as its baseline says,
    not the combined row's global-memory latency (27%).
    """
    regime = str(row.get(col.REGIME) or "")
    pct = num(row, col.REGIME_CEILING_PCT)
    if not regime or not ok(pct):
        return None
    near = limiter.near_ceiling(now if now is not None else limiter.limit(row))
    limiter_said, said, top = _limiter(row, found, now)
    common = {
        col.VARIANT: row[col.VARIANT],
        col.REGIME: regime_words(row),
        "rate": rate(row),
        "pct": pct,
        "ceiling": msg(f"ceiling_{row.get('regime_ceiling')}"),
        "roof": _zero(num(row, "roof_time_us")),
        "limiter": limiter_said,
        "now": said,
        col.BASIS: str(row.get("regime_basis") or ""),
    }
    rule = f"stand_{regime}"
    if regime == "latency" and near:
        rule = "stand_latency_unit"  # the roofline's regime, a unit off it at its peak
    if regime == "memory":
        moved = num(row, "dram_bytes") / num(row, "ideal_bytes")
        common[col.RATIO] = moved if ok(moved) else 0.0
        if pct >= AT_ROOF_PCT and not ok(moved):
            rule = "at_dram_floor_timing"
        elif pct >= AT_ROOF_PCT and moved <= FLOOR_BYTES:
            rule = "at_dram_floor"
        elif num(row, "dram_pct") >= AT_ROOF_PCT and ok(moved) and moved > FLOOR_BYTES:
            rule = "dram_saturated_excess"
    elif regime == "compute":
        common["pipe"] = pipe_words(row)
        fp32 = num(row, col.PCT_OF_FP32_PEAK)
        if ok(fp32) and fp32 >= AT_ROOF_PCT:
            rule = "at_compute_roof"
        elif pct >= AT_ROOF_PCT:  # at the vendor library's rate, below the FP32 roof
            rule, common["fp32"] = "at_vendor_rate", _zero(fp32)
    return Finding(
        rule,
        params=msg(rule, **common),
        metric=_ceiling_metric(row),
        value=pct,
        threshold=AT_ROOF_PCT,
        evidence=top.mechanism if top else "",
    )


def _ceiling_metric(row: Mapping[str, Any]) -> str:
    return {
        "copy_bw": "achieved GB/s (ideal bytes) / copy bandwidth",
        "fp32_peak": "achieved GFLOP/s (ideal FLOPs) / FP32 peak",
        "vendor_sgemm": "achieved GFLOP/s (ideal FLOPs) / cuBLAS SGEMM",
        "roofline": "roof time at the ideal intensity / time",
    }.get(str(row.get(col.REGIME_CEILING)), "")


def plan(
    row: Mapping[str, Any],
    compiled: Mapping[str, Any] | None = None,
    run: Sequence[Cause] | None = None,
) -> list[Finding]:
    """Remedies for a baseline, largest cause first, each with its time without it.

    The remedy is the advice's own (:func:`~nsightflow.diagnosis.advice.fix_message`
    at the gain of the cause's share, in the terms of what the compiler built), and
    a cause whose remedy is already in the kernel is left out, as the advice leaves
    it out: the plan and "what next" say one thing of the same launch. A run of
    several launches is planned from its causes launch by launch, as its baseline
    section ranks them (reduction v0: the finish kernel, 25% of the run, first).
    """
    compiled = compiled or {}
    roof = num(row, "roof_time_us")
    t = num(row, col.TIME_MEDIAN_US)
    found = list(run) if run else (causes(row) if row.get("profiled") else [])
    if not found:
        return [
            Finding(
                "plan_unprofiled",
                params={"roof": _zero(roof), "t": _zero(t)},
                metric="gpu__time_duration.sum",
            )
        ]
    scale = t / num(row, "ncu_time_us")  # ncu's split in event-timed microseconds
    items = []
    for cause in found[:PLAN_ITEMS]:
        us = cause.time_us * scale
        without = max(t - us, roof if ok(roof) else 0.0)
        gain = t / without if without > 0 else math.nan
        if already_done(cause.mechanism, row, compiled, gain):
            continue
        items.append(
            Finding(
                f"plan_{cause.mechanism}",
                params=msg(
                    "plan_item_run" if of_run(found) else "plan_item",
                    label=msg(f"mech_{cause.mechanism}"),
                    fix=fix_message(cause.mechanism, row, compiled, gain),
                    us=us,
                    share=100 * cause.share,
                    without=without,
                    t=t,
                    roof=_zero(roof),
                ),
                metric=cause.mechanism,
                value=us,
                share=cause.share,
            )
        )
    return items


def sweep(rows: pd.DataFrame, l2_bytes: float | None) -> list[Finding]:
    """Regime changes and throughput drops along one variant's size sweep."""
    rows = rows.sort_values(col.SIZE)
    records = [
        {str(k): v for k, v in r.items()}
        for r in rows.to_dict("records")
        if r.get(col.REGIME)
    ]
    found = []
    regimes = [regime_key(r) for r in records]
    if len(set(regimes)) > 1:
        spans = _spans(records)
        found.append(
            Finding(
                "sweep_regimes",
                params={
                    col.VARIANT: records[0][col.VARIANT],
                    "spans": [
                        msg(
                            "sweep_span",
                            regime=g,
                            first=size_text(a),
                            last=size_text(b),
                        )
                        if a != b
                        else msg("sweep_span_one", regime=g, n=a)
                        for g, a, b in spans
                    ],
                },
                metric=col.REGIME,
            )
        )
    for a, b in itertools.pairwise(records):
        drop = _drop(a, b, l2_bytes)
        if drop:
            found.append(drop)
    return found


def _spans(records: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int, int]]:
    """Runs of sizes with one regime (:func:`regime_key`), each in its words."""
    spans: list[tuple[str, dict[str, Any], int, int]] = []
    for r in records:
        key, n = regime_key(r), int(r[col.SIZE])
        if spans and spans[-1][0] == key:
            spans[-1] = (key, spans[-1][1], spans[-1][2], n)
        else:
            spans.append((key, regime_words(r), n, n))
    return [(words, a, b) for _, words, a, b in spans]


def _drop(
    a: Mapping[str, Any], b: Mapping[str, Any], l2_bytes: float | None
) -> Finding | None:
    """A fall of the regime's own throughput between two sizes of one regime."""
    if a[col.REGIME] != b[col.REGIME] or a[col.REGIME] not in ("memory", "compute"):
        return None
    column = col.GBPS if a[col.REGIME] == "memory" else col.GFLOPS
    x, y = num(a, column), num(b, column)
    if not (ok(x) and ok(y) and x > 0) or 100 * (x - y) / x < SWEEP_DROP_PCT:
        return None
    crossed = (
        a[col.REGIME] == "memory"
        and l2_bytes is not None
        and num(a, "ideal_bytes") <= l2_bytes < num(b, "ideal_bytes")
    )
    reason = (
        msg("sweep_left_l2", working_set=num(b, "ideal_bytes") / 1e6, l2=l2_bytes / 1e6)
        if crossed and l2_bytes
        else msg("sweep_unexplained")
    )
    return Finding(
        "sweep_drop",
        params={
            col.VARIANT: a[col.VARIANT],
            "rate_a": rate(a),
            "rate_b": rate(b),
            "n_a": int(a[col.SIZE]),
            "n_b": int(b[col.SIZE]),
            "pct": 100 * (x - y) / x,
            col.REASON: reason,
        },
        metric=column,
        before=x,
        after=y,
        threshold=SWEEP_DROP_PCT,
    )


# the verdict of a step lives with the timing noise it is read against
__all__ = ["step_verdict"]
