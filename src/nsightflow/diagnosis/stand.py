"""Where a variant stands, the plan after a baseline, the conclusion, the headline, the sweep.

- *Stand* (one per variant and size): its regime, the share of that regime's ceiling it
  reaches on the ideal work, what limits it now (its largest cause), and the stop
  condition: at >= 90% of the copy bandwidth a memory-bound kernel sits at the DRAM
  floor (only fewer bytes help); at >= 90% of the vendor library (or FP32 peak) a
  compute-bound one is at the roof (tensor cores or fewer FLOPs help).
- *Plan* (after each input's baseline): its causes as remedies, largest first, each
  with the time the launch would take without it (never below the roof).
- *Conclusion* (per input): the best variant and its share of the roof, one line per
  step (paid or not, and its primary cause), what to try next.
- *Headline* (per input): the fastest correct variant at the report's key size, the
  same sentence in the report's header and in the index.
- *Sweep*: a variant whose regime changes over the sizes, and drops of the regime's
  throughput between sizes (leaving the L2, where the working set crosses it).

Pure functions over analysis rows (dicts, stall reasons as ``stall_<reason>``).
"""

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from nsightflow.diagnosis.causes import Cause, causes
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg

AT_ROOF_PCT = 90.0  # the stop condition: % of the copy bandwidth or vendor library
FLOOR_BYTES = 1.2  # DRAM bytes / ideal bytes at which the DRAM floor is the ideal one
PLAN_ITEMS = 4  # remedies listed in a plan
SWEEP_DROP_PCT = 15.0  # a throughput drop between sizes worth a line


def regime_label(regime: str) -> dict[str, Any]:
    """The regime's name as a message."""
    return msg(f"regime_{regime or 'unknown'}")


def rate(row: Mapping[str, Any]) -> dict[str, Any]:
    """The row's throughput in its lens: GB/s (memory) or GFLOP/s (compute)."""
    if row.get("lens") == "compute":
        return msg("rate_gflops", gflops=_zero(num(row, "gflops")))
    return msg("rate_gbps", gbps=_zero(num(row, "gbps")))


def _zero(value: float) -> float:
    return value if ok(value) else 0.0


def _limiter(row: Mapping[str, Any]) -> tuple[dict[str, Any], Cause | None]:
    found = causes(row) if row.get("profiled") else []
    if not found:
        return msg("limiter_unprofiled"), None
    top = found[0]
    return msg(
        "limiter", label=msg(f"mech_{top.mechanism}"), share=100 * top.share
    ), top


def stand(row: Mapping[str, Any]) -> Finding | None:
    """Where one variant stands at one size (None when it has no regime)."""
    regime = str(row.get("regime") or "")
    pct = num(row, "regime_ceiling_pct")
    if not regime or not ok(pct):
        return None
    limiter, top = _limiter(row)
    common = {
        "variant": row["variant"],
        "regime": regime_label(regime),
        "rate": rate(row),
        "pct": pct,
        "ceiling": msg(f"ceiling_{row.get('regime_ceiling')}"),
        "roof": _zero(num(row, "roof_time_us")),
        "limiter": limiter,
        "basis": str(row.get("regime_basis") or ""),
    }
    rule = f"stand_{regime}"
    if regime == "memory":
        moved = num(row, "dram_bytes") / num(row, "ideal_bytes")
        common["ratio"] = moved if ok(moved) else 0.0
        if pct >= AT_ROOF_PCT and not ok(moved):
            rule = "at_dram_floor_timing"
        elif pct >= AT_ROOF_PCT and moved <= FLOOR_BYTES:
            rule = "at_dram_floor"
        elif num(row, "dram_pct") >= AT_ROOF_PCT and ok(moved) and moved > FLOOR_BYTES:
            rule = "dram_saturated_excess"
    elif regime == "compute" and pct >= AT_ROOF_PCT:
        rule = "at_compute_roof"
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
    }.get(str(row.get("regime_ceiling")), "")


def plan(row: Mapping[str, Any]) -> list[Finding]:
    """Remedies for a baseline, largest cause first, each with its time without it."""
    roof = num(row, "roof_time_us")
    t = num(row, "time_median_us")
    found = causes(row) if row.get("profiled") else []
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
        items.append(
            Finding(
                f"plan_{cause.mechanism}",
                params=msg(
                    "plan_item",
                    label=msg(f"mech_{cause.mechanism}"),
                    fix=msg(f"fix_{cause.mechanism}"),
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


def headline(row: Mapping[str, Any], baseline: str) -> Finding:
    """The fastest correct variant of an input at the key size."""
    return Finding(
        "headline",
        params={
            "variant": row["variant"],
            "n": int(row["size"]),
            "time": num(row, "time_median_us"),
            "speedup": _zero(num(row, "speedup_vs_baseline")),
            "baseline": baseline,
            "rate": rate(row),
            "regime": regime_label(str(row.get("regime") or "")),
            "pct": _zero(num(row, "regime_ceiling_pct")),
            "ceiling": msg(f"ceiling_{row.get('regime_ceiling') or 'unknown'}"),
            "input": input_of(row),
        },
        metric="time_median_us",
        value=num(row, "time_median_us"),
    )


def input_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """The message naming the row's input (its ``input`` label, or the default)."""
    label = row.get("input")
    if not isinstance(label, str) or not label:
        return msg("input_default")
    return msg("input_named", label=label)


def conclusion(
    best: Mapping[str, Any],
    steps: Sequence[tuple[Mapping[str, Any], str]],
    stand_rule: str,
) -> list[Finding]:
    """Best variant, one line per step and what to try next, for one input.

    Args:
        best: The fastest correct variant's row at the key size.
        steps: Per step of the input's ladder, the after-variant's row at the key
            size and its primary cause's rule id ("" when not profiled).
        stand_rule: The rule of the best variant's stand (at the floor, roof, ...).
    """
    found = [
        Finding(
            "conclusion_best",
            params={
                "variant": best["variant"],
                "regime": regime_label(str(best.get("regime") or "")),
                "pct": _zero(num(best, "regime_ceiling_pct")),
                "ceiling": msg(f"ceiling_{best.get('regime_ceiling') or 'unknown'}"),
                "speedup": _zero(num(best, "speedup_vs_baseline")),
                "rate": rate(best),
            },
            metric="regime_ceiling_pct",
            value=num(best, "regime_ceiling_pct"),
        )
    ]
    for row, why in steps:
        speedup = num(row, "speedup_vs_previous")
        if not ok(speedup):
            continue
        found.append(
            Finding(
                "conclusion_step",
                params={
                    "variant": row["variant"],
                    "before": row.get("step_of", ""),
                    "speedup": speedup,
                    "verdict": msg(step_verdict(speedup)),
                    "why": msg(f"mech_{why}") if why else msg("mech_unknown"),
                },
                metric="speedup_vs_previous",
                value=speedup,
                threshold=1.0,
            )
        )
    found.append(_next(best, stand_rule))
    return found


def _next(best: Mapping[str, Any], stand_rule: str) -> Finding:
    if stand_rule in ("at_dram_floor", "at_dram_floor_timing", "dram_saturated_excess"):
        return Finding(f"next_{stand_rule}", params={"variant": best["variant"]})
    if stand_rule == "at_compute_roof":
        return Finding("next_at_compute_roof", params={"variant": best["variant"]})
    top = causes(best) if best.get("profiled") else []
    if not top:
        return Finding("next_profile", params={"variant": best["variant"]})
    return Finding(
        "next_remedy",
        params={
            "variant": best["variant"],
            "label": msg(f"mech_{top[0].mechanism}"),
            "fix": msg(f"fix_{top[0].mechanism}"),
        },
        metric=top[0].mechanism,
        share=top[0].share,
    )


def sweep(rows: pd.DataFrame, l2_bytes: float | None) -> list[Finding]:
    """Regime changes and throughput drops along one variant's size sweep."""
    rows = rows.sort_values("size")
    records = [
        {str(k): v for k, v in r.items()}
        for r in rows.to_dict("records")
        if r.get("regime")
    ]
    found = []
    regimes = [str(r["regime"]) for r in records]
    if len(set(regimes)) > 1:
        spans = _spans(records)
        found.append(
            Finding(
                "sweep_regimes",
                params={
                    "variant": records[0]["variant"],
                    "spans": [
                        msg("sweep_span", regime=regime_label(g), first=a, last=b)
                        if a != b
                        else msg("sweep_span_one", regime=regime_label(g), n=a)
                        for g, a, b in spans
                    ],
                },
                metric="regime",
            )
        )
    for a, b in itertools.pairwise(records):
        drop = _drop(a, b, l2_bytes)
        if drop:
            found.append(drop)
    return found


def _spans(records: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    spans: list[tuple[str, int, int]] = []
    for r in records:
        if spans and spans[-1][0] == r["regime"]:
            spans[-1] = (spans[-1][0], spans[-1][1], int(r["size"]))
        else:
            spans.append((str(r["regime"]), int(r["size"]), int(r["size"])))
    return spans


def _drop(
    a: Mapping[str, Any], b: Mapping[str, Any], l2_bytes: float | None
) -> Finding | None:
    """A fall of the regime's own throughput between two sizes of one regime."""
    if a["regime"] != b["regime"] or a["regime"] not in ("memory", "compute"):
        return None
    column = "gbps" if a["regime"] == "memory" else "gflops"
    x, y = num(a, column), num(b, column)
    if not (ok(x) and ok(y) and x > 0) or 100 * (x - y) / x < SWEEP_DROP_PCT:
        return None
    crossed = (
        a["regime"] == "memory"
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
            "variant": a["variant"],
            "rate_a": rate(a),
            "rate_b": rate(b),
            "n_a": int(a["size"]),
            "n_b": int(b["size"]),
            "pct": 100 * (x - y) / x,
            "reason": reason,
        },
        metric=column,
        before=x,
        after=y,
        threshold=SWEEP_DROP_PCT,
    )


SAME_PCT = 2.0  # a step within this of 1.00x did not measurably change the time


def step_verdict(speedup: float) -> str:
    """``paid``, ``not_paid`` or ``no_gain`` (within :data:`SAME_PCT` of 1.00x)."""
    if abs(speedup - 1) * 100 < SAME_PCT:
        return "no_gain"
    return "paid" if speedup > 1 else "not_paid"
