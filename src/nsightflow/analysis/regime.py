"""Regime of each variant and size: which ceiling applies, decided from measurements.

A kernel is *memory*-bound when the DRAM or the L2 runs near its peak (or, from the
timing alone, its ideal bytes move near the measured copy bandwidth), *compute*-bound
when its FP32 rate (ncu's FLOPs, or the ideal ones, over its time) runs near the
measured FP32 peak, and *latency*-bound when neither is: its warps wait. A busy pipe
or busy issue slots are no place on the roofline: they are what limits the launch
(:mod:`nsightflow.diagnosis.limiter`), and the regime never reads them (Jacobi-2D's
shared-memory tile at n = 2048 issued 62% of its slots, its LSU pipe 60% busy, at
2% of the FP32 peak: it was called compute-bound). Where no throughput is high, the
roofline decides between the first two only if the kernel's ideal arithmetic
intensity (the manifest's FLOPs per byte: what the algorithm needs, not what its caching
achieved) is clearly on one side of the ridge and its throughput on that side is at
least moderate; else the kernel is latency-bound. "High" is Nsight Compute's own line:
its SpeedOfLight rule reads compute or memory throughput below 60% of peak as latency
issues.

The counters (``sm__inst_executed_pipe_fma``, ``sm__inst_issued``, ``dram__throughput``,
``lts__throughput``, each as % of peak) are used where the recording holds them; without
them the FP32 and issue rates are derived from counts and ncu's duration
(``smsp__sass_thread_inst_executed_op_ffma_pred_on.sum``, ``smsp__inst_executed.sum``,
``sm__cycles_elapsed.avg.per_second``) and the DRAM rate from ncu's bytes over the
measured copy bandwidth; the issue and FMA-pipe rates are reported beside the regime,
not read by it. Unprofiled sizes decide from their timing; where that alone is
not decisive they take the regime a profiled size of the same variant got from its
counters, if the two run at a similar rate.

Columns added (:func:`add_regime`): ``regime`` (memory / compute / latency, ``""``
when nothing was timed), ``regime_basis`` (the metrics that decided, with their values),
``regime_ceiling`` (copy_bw / fp32_peak / vendor_sgemm / roofline),
``regime_ceiling_pct`` (% of that ceiling reached on the ideal work), ``roof_time_us``
(the ideal work at that ceiling), ``lens`` (memory or compute: the throughput the
report shows), ``memory_pct`` / ``compute_pct`` (the evidence), ``flops_pct`` (ncu's
FP32 FLOPs over its time, % of the measured FP32 peak), ``issue_pct``,
``fma_pct`` and ``dram_pct`` with ``*_source`` naming counter or derivation, ``ai``
(measured FLOPs per DRAM byte where DRAM saw the traffic, else the ideal one), ``ridge``.
The lens follows the ideal intensity alone, so one family reads in one unit. Pure functions.
"""

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from nsightflow.contracts import columns as col

HIGH_PCT = 60.0  # ncu SpeedOfLight: below 60% of peak on both sides = latency issues
MODERATE_PCT = 40.0  # the roof's side needs this much throughput to decide alone
RIDGE_MARGIN = 2.0  # intensity at least this factor away from the ridge to decide
SIMILAR_RATE = 1.25  # an unprofiled size borrows a profiled size's regime within this
REGIMES = ("memory", "compute", "latency")

# Where each piece of evidence comes from, for ``regime_basis`` and the report.
COUNTER = col.COUNTER
DERIVED = "derived"
TIMING = "timing"


def add_regime(
    frame: pd.DataFrame,
    ceilings: Mapping[str, Any],
    vendor_gflops: Mapping[int, float] | None,
) -> pd.DataFrame:
    """The analysis table with the regime columns of the module docstring (a new frame).

    Args:
        frame: The analysis table after :func:`nsightflow.analysis.derived.add_derived`.
        ceilings: Measured ceilings (``copy_gbps``, ``fp32_gflops``).
        vendor_gflops: The vendor library's rate at each size it was measured at,
            where the family declares one (the compute ceiling there instead of the
            FP32 peak; a size without it is measured against the FP32 peak), else
            None.
    """
    out = frame.copy()
    copy = _pos(ceilings.get(col.COPY_GBPS))
    fp32 = _pos(ceilings.get(col.FP32_GFLOPS))
    rates = out.apply(lambda r: _rates(r, copy, fp32), axis=1, result_type="expand")
    for column in rates.columns:
        out[column] = rates[column]
    out["ridge"] = fp32 / copy if copy and fp32 else np.nan
    records = [{str(k): v for k, v in r.items()} for r in out.to_dict("records")]
    evidence = [_evidence(r) for r in records]
    for side in ("memory", "compute"):
        out[f"{side}_pct"] = [
            _top(e[side])[1] if e[side] else math.nan for e in evidence
        ]
    decided = [classify(e) for e in evidence]
    out[col.REGIME] = [d[0] for d in decided]
    out["regime_basis"] = [d[1] for d in decided]
    out = _borrow_profiled(out)
    vendor = dict(vendor_gflops or {})

    def stand(r: Mapping[str, Any]) -> dict[str, Any]:
        rate = vendor.get(int(r[col.SIZE])) if col.SIZE in r else None
        return _stand(r, copy, fp32, rate or fp32, bool(rate))

    stands = out.apply(stand, axis=1, result_type="expand")
    for column in (col.REGIME_CEILING, col.REGIME_CEILING_PCT, "roof_time_us", "lens"):
        out[column] = stands[column] if len(out) else pd.Series(dtype=object)
    return out


def _pos(value: Any) -> float | None:
    """A positive number, or None."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number > 0 and not math.isnan(number) else None


def _num(row: Mapping[str, Any], key: str) -> float:
    value = row.get(key)
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return math.nan


def _rates(
    row: Mapping[str, Any], copy: float | None, fp32: float | None = None
) -> dict[str, Any]:
    """Issue, FP32-pipe and DRAM rates: the counter where recorded, else derived.

    ``flops_pct``: ncu's FP32 FLOPs over its time against the measured FP32 peak
    (the roofline's measured point), NaN without the ceiling or the counts.
    """
    seconds = _num(row, "ncu_time_ns") * 1e-9
    cycles = seconds * _num(row, "sm_hz")
    issue, issue_src = _num(row, "issue_counter_pct"), COUNTER
    if math.isnan(issue):
        slots = _num(row, "sm_count") * _num(row, "schedulers_per_sm") * cycles
        issue, issue_src = 100 * _num(row, "inst_executed") / slots, DERIVED
    fma, fma_src = _num(row, "fma_pipe_counter_pct"), COUNTER
    if math.isnan(fma):
        peak = _num(row, "peak_ffma_per_cycle") * cycles
        fma, fma_src = 100 * _num(row, "ffma") / peak, DERIVED
    dram, dram_src = _num(row, "dram_throughput_pct"), COUNTER
    if math.isnan(dram) and copy:
        dram, dram_src = 100 * _num(row, "dram_gbps") / copy, DERIVED
    flops, nbytes = _num(row, "measured_flops"), _num(row, "dram_bytes")
    ideal = _num(row, "ai_ideal")
    # ncu's own intensity where DRAM saw the traffic; at L2-resident sizes the ideal one
    ai = flops / nbytes if nbytes > 0.5 * _num(row, "ideal_bytes") else ideal
    flops_pct = 100 * flops / (seconds * 1e9 * fp32) if fp32 else math.nan
    return {
        "flops_pct": _clean(flops_pct),
        "issue_pct": _clean(issue),
        "issue_source": issue_src if not math.isnan(_clean(issue)) else "",
        "fma_pct": _clean(fma),
        "fma_source": fma_src if not math.isnan(_clean(fma)) else "",
        "dram_pct": _clean(dram),
        "dram_source": dram_src if not math.isnan(_clean(dram)) else "",
        "ai": ai if not math.isnan(ai) else ideal,
    }


def _clean(value: float) -> float:
    """NaN for an undefined rate (0/0, inf from a zero time)."""
    return value if math.isfinite(value) else math.nan


def _evidence(row: Mapping[str, Any]) -> dict[str, Any]:
    """The throughputs one row offers, by side, each named by the metric behind it."""
    memory = {
        "ideal_bytes/t/copy_gbps": _num(row, col.PCT_OF_COPY_BW),
        _dram_name(row): _num(row, "dram_pct"),
        "lts__throughput.avg.pct_of_peak_sustained_elapsed": _num(
            row, "l2_throughput_pct"
        ),
    }
    # the FP32 rate against the measured FP32 peak, of the ideal and of ncu's FLOPs:
    # the roofline's own axis. A busy pipe or issue slots are what limits the launch
    # (diagnosis/limiter.py), not its place on the roofline: Jacobi-2D's shared tile
    # issues 62% of its slots with its LSU pipe 60% busy at 2% of the FP32 peak
    compute = {
        "ideal_flops/t/fp32_gflops": _num(row, col.PCT_OF_FP32_PEAK),
        "measured_flops/t/fp32_gflops": _num(row, "flops_pct"),
    }
    return {
        "memory": {k: v for k, v in memory.items() if not math.isnan(v)},
        "compute": {k: v for k, v in compute.items() if not math.isnan(v)},
        "ai": _num(row, "ai_ideal"),
        "ridge": _num(row, "ridge"),
    }


def _dram_name(row: Mapping[str, Any]) -> str:
    if row.get("dram_source") == COUNTER:
        return "dram__throughput.avg.pct_of_peak_sustained_elapsed"
    return "(dram__bytes_read.sum+dram__bytes_write.sum)/t/copy_gbps"


def classify(evidence: Mapping[str, Any]) -> tuple[str, str]:
    """The regime and the basis that decided it, from :func:`_evidence`'s mapping.

    Args:
        evidence: ``memory`` and ``compute``: metric name -> % of its peak (only
            measured ones); ``ai`` and ``ridge`` in FLOP/byte (NaN when unknown).

    Returns:
        ``(regime, basis)``; ``("", "")`` when nothing was measured.
    """
    memory, compute = evidence["memory"], evidence["compute"]
    if not memory and not compute:
        return "", ""
    m_name, m_pct = _top(memory)
    c_name, c_pct = _top(compute)
    if max(m_pct, c_pct) >= HIGH_PCT:
        if m_pct >= c_pct:
            return "memory", f"{m_name} = {m_pct:.0f}% >= {HIGH_PCT:.0f}%"
        return "compute", f"{c_name} = {c_pct:.0f}% >= {HIGH_PCT:.0f}%"
    ai, ridge = evidence["ai"], evidence["ridge"]
    side = _side(ai, ridge)
    pick = {"memory": (m_name, m_pct), "compute": (c_name, c_pct)}.get(side)
    if pick and pick[1] >= MODERATE_PCT:
        return side, (
            f"{_ridge_side(side, ai, ridge)}; {pick[0]} = "
            f"{pick[1]:.0f}% >= {MODERATE_PCT:.0f}%"
        )
    basis = f"{m_name} = {m_pct:.0f}%, {c_name} = {c_pct:.0f}% < {HIGH_PCT:.0f}%"
    if pick:  # the ridge's side was tried too: the moderate line it missed
        basis += (
            f"; {_ridge_side(side, ai, ridge)}, {pick[0]} = "
            f"{pick[1]:.0f}% < {MODERATE_PCT:.0f}%"
        )
    return "latency", basis


def _ridge_side(side: str, ai: float, ridge: float) -> str:
    """The intensity against the ridge, as the side it is clearly on."""
    relation = ">=" if side == "compute" else "<="
    factor = f"{RIDGE_MARGIN:g}x" if side == "compute" else f"1/{RIDGE_MARGIN:g}x"
    return f"AI {ai:.2f} {relation} {factor} ridge {ridge:.1f}"


def _top(side: Mapping[str, float]) -> tuple[str, float]:
    if not side:
        return "n/a", 0.0
    name = max(side, key=lambda k: side[k])
    return name, side[name]


def _side(ai: float, ridge: float) -> str:
    """Which side of the ridge the intensity is clearly on ('' when near it)."""
    if math.isnan(ai) or math.isnan(ridge) or ai <= 0:
        return ""
    if ai >= RIDGE_MARGIN * ridge:
        return "compute"
    if ai <= ridge / RIDGE_MARGIN:
        return "memory"
    return ""


def _borrow_profiled(frame: pd.DataFrame) -> pd.DataFrame:
    """Unprofiled rows timing could not decide take a profiled size's regime.

    Only from a profiled size of the same variant that ncu decided as memory or
    compute, and only where this size runs within :data:`SIMILAR_RATE` of that size's
    rate on the same side (achieved GB/s or GFLOP/s of the ideal work).
    """
    out = frame.copy()
    profiled = out[out["profiled"].astype(bool) & out[col.REGIME].isin(REGIMES[:2])]
    by_variant: dict[Any, list[dict[Any, Any]]] = {}
    for peer in profiled.to_dict("records"):
        by_variant.setdefault(peer[col.VARIANT], []).append(peer)
    undecided = out[~out["profiled"].astype(bool) & (out[col.REGIME] == "latency")]
    for i, row in zip(undecided.index, undecided.to_dict("records"), strict=True):
        for peer in by_variant.get(row[col.VARIANT], []):
            column = col.GBPS if peer[col.REGIME] == "memory" else col.GFLOPS
            ratio = row[column] / peer[column] if peer[column] else math.nan
            if 1 / SIMILAR_RATE <= ratio <= SIMILAR_RATE:
                out.loc[i, col.REGIME] = peer[col.REGIME]
                out.loc[i, "regime_basis"] = (
                    f"n = {peer['size']}: {peer['regime_basis']}; {column} x{ratio:.2f}"
                )
                break
    return out


def _stand(
    row: Mapping[str, Any],
    copy: float | None,
    fp32: float | None,
    compute: float | None,
    vendor: bool,
) -> dict[str, Any]:
    """The ceiling of the row's regime, the share of it reached, and its floor time."""
    t_mem = _num(row, "ideal_bytes") / copy / 1e3 if copy else math.nan
    t_fp32 = _num(row, "ideal_flops") / fp32 / 1e3 if fp32 else math.nan
    t_comp = _num(row, "ideal_flops") / compute / 1e3 if compute else math.nan
    regime = row.get(col.REGIME)
    ai, ridge = _num(row, "ai_ideal"), _num(row, "ridge")
    lens = "compute" if not math.isnan(ridge) and ai >= ridge else "memory"
    if regime == "memory":
        name, floor, lens = "copy_bw", t_mem, "memory"
    elif regime == "compute":
        name = "vendor_sgemm" if vendor else "fp32_peak"
        floor, lens = t_comp, "compute"
    elif regime == "latency":
        name, floor = "roofline", np.nanmax([t_mem, t_fp32, 0.0])
    else:
        return {
            col.REGIME_CEILING: "",
            col.REGIME_CEILING_PCT: math.nan,
            "roof_time_us": math.nan,
            "lens": lens,
        }
    time = _num(row, col.TIME_MEDIAN_US)
    pct = 100 * floor / time if time > 0 and floor > 0 else math.nan
    return {
        col.REGIME_CEILING: name,
        col.REGIME_CEILING_PCT: pct,
        "roof_time_us": floor if floor > 0 else math.nan,
        "lens": lens,
    }
