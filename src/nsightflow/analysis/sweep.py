"""A family's sweep records as two tidy tables (pure pandas).

``sweep.csv``: one row per variant and configuration.
    ``family, variant, config_id, status, message, is_best, is_default, from_cache,
    verify_n, rel_l2_error, geomean_us, registers, spill_bytes, shared_bytes,
    wall_s``, one ``param_<NAME>`` column per parameter (empty where a variant has no
    such parameter) and per sweep size ``n``: ``time_us_<n>``, ``gflops_<n>``,
    ``gbps_<n>`` (ideal FLOPs and bytes of the family over the median time).

``sweep_summary.csv``: one row per swept variant.
    ``family, variant, status, message, space, strategy, sizes, axes, configs, ok,
    invalid, not_run, best_id, default_id, best_us, median_us, worst_us,
    default_us, default_over_best, worst_over_best, sweep_wall_s, compile_wall_s,
    per_config_s, resumed, restarts, gpu, date, replayed_from`` (times are the
    geometric mean over the sweep sizes of each configuration's median).
"""

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.contracts import SWEEP, SWEEP_SUMMARY, Status
from nsightflow.errors import ManifestError
from nsightflow.family.model import Family
from nsightflow.io import read_json


def config_frame(record: Mapping[str, Any], family: Family | None) -> pd.DataFrame:
    """One row per configuration of one sweep record (see the module docstring)."""
    rows = []
    best = (record.get("best") or {}).get("id")
    for c in record.get("configs", []):
        res = c.get("resources") or {}
        row: dict[str, Any] = {
            "family": record["family"],
            "variant": record["variant"],
            "config_id": c["id"],
            "status": c["status"],
            "message": c.get("message", ""),
            "is_best": c["id"] == best,
            "is_default": c["id"] == record.get("default_id"),
            "from_cache": bool(c.get("from_cache", False)),
            "verify_n": c.get("verify_n"),
            "rel_l2_error": c.get("rel_l2_error"),
            "geomean_us": c.get("geomean_us"),
            "registers": res.get("registers"),
            "spill_bytes": res.get("spill_store_bytes"),
            "shared_bytes": res.get("shared_bytes"),
            "wall_s": c.get("wall_s"),
            **{f"param_{k}": v for k, v in c["params"].items()},
        }
        for n in record.get("sizes", []):
            t = (c.get("times_us") or {}).get(str(n))
            row[f"time_us_{n}"] = t
            row[f"gflops_{n}"] = _rate(family, "flops", n, t)
            row[f"gbps_{n}"] = _rate(family, "bytes", n, t)
        rows.append(row)
    return pd.DataFrame(rows)


def _rate(family: Family | None, kind: str, n: int, time_us: float | None) -> Any:
    """Ideal FLOP/s or bytes/s (in G per s) over a time, or None."""
    if family is None or not time_us:
        return None
    try:
        work = family.ideal_flops(n) if kind == "flops" else family.ideal_bytes(n)
    except ManifestError:  # needs generated sizes (e.g. nnz) the sweep did not keep
        return None
    return work / (time_us * 1e3)


def summary_row(record: Mapping[str, Any], configs: pd.DataFrame) -> dict[str, Any]:
    """One swept variant's spread: best, median and worst against its default."""
    ok = configs[configs["status"] == Status.OK] if not configs.empty else configs
    times = ok["geomean_us"].astype(float) if not ok.empty else pd.Series(dtype=float)
    default = ok[ok["is_default"]]["geomean_us"] if not ok.empty else times
    best = times.min() if not times.empty else None
    default_us = float(default.iloc[0]) if not default.empty else None
    prov = record.get("provenance", {})
    n = len(configs)
    counts = configs["status"].value_counts() if n else pd.Series(dtype=int)
    evaluated = int(configs["wall_s"].notna().sum()) if n else 0
    gpu_wall = configs["wall_s"].astype(float).sum() if n else 0.0
    return {
        "family": record["family"],
        "variant": record["variant"],
        "status": record.get("status", "unknown"),
        "message": record.get("message", ""),
        "space": record.get("space"),
        "strategy": record.get("strategy"),
        "sizes": json.dumps(record.get("sizes", [])),
        "axes": json.dumps(record.get("axes", {})),
        "configs": n,
        "ok": int(counts.get("ok", 0)),
        "invalid": int(n - counts.get("ok", 0) - counts.get("not_run", 0)),
        "not_run": int(counts.get("not_run", 0)),
        "best_id": (record.get("best") or {}).get("id"),
        "default_id": record.get("default_id"),
        "best_us": best,
        "median_us": float(times.median()) if not times.empty else None,
        "worst_us": float(times.max()) if not times.empty else None,
        "default_us": default_us,
        "default_over_best": default_us / best if default_us and best else None,
        "worst_over_best": float(times.max()) / best if best else None,
        "sweep_wall_s": record.get("sweep_wall_s"),
        "compile_wall_s": record.get("compile_wall_s"),
        "per_config_s": gpu_wall / evaluated if evaluated else None,
        "resumed": record.get("resumed"),
        "restarts": record.get("restarts"),
        "gpu": prov.get("gpu"),
        "date": prov.get("date"),
        "replayed_from": record.get("replayed_from"),
    }


def sweep_tables(
    records: Sequence[Mapping[str, Any]], family: Family | None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(configurations, summary) of the family's sweep records."""
    frames = [config_frame(r, family) for r in records]
    rows = [summary_row(r, f) for r, f in zip(records, frames, strict=True)]
    configs = (
        pd.concat([f for f in frames if not f.empty], ignore_index=True)
        if any(not f.empty for f in frames)
        else pd.DataFrame(columns=["family", "variant", "config_id", "status"])
    )
    return configs, SWEEP_SUMMARY.frame(rows)


def write_analysis(records: list[Path], out_dir: Path, family: Family | None) -> None:
    """Write ``sweep.csv`` and ``sweep_summary.csv`` of a family's sweep records."""
    data = [read_json(p) for p in records]
    configs, summary = sweep_tables(data, family)
    out_dir.mkdir(parents=True, exist_ok=True)
    SWEEP.write(configs, out_dir / SWEEP.name)
    SWEEP_SUMMARY.write(summary, out_dir / SWEEP_SUMMARY.name)
