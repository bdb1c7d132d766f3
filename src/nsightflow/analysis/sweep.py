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
from nsightflow.contracts import columns as col
from nsightflow.errors import ManifestError
from nsightflow.family.model import Family
from nsightflow.io import read_json


def config_frame(record: Mapping[str, Any], family: Family | None) -> pd.DataFrame:
    """One row per configuration of one sweep record (see the module docstring)."""
    rows = []
    best = (record.get("best") or {}).get("id")
    for c in record.get(col.CONFIGS, []):
        res = c.get("resources") or {}
        row: dict[str, Any] = {
            col.FAMILY: record[col.FAMILY],
            col.VARIANT: record[col.VARIANT],
            col.CONFIG_ID: c["id"],
            col.STATUS: c[col.STATUS],
            col.MESSAGE: c.get(col.MESSAGE, ""),
            col.IS_BEST: c["id"] == best,
            col.IS_DEFAULT: c["id"] == record.get(col.DEFAULT_ID),
            col.FROM_CACHE: bool(c.get(col.FROM_CACHE, False)),
            col.VERIFY_N: c.get(col.VERIFY_N),
            col.REL_L2_ERROR: c.get(col.REL_L2_ERROR),
            col.GEOMEAN_US: c.get(col.GEOMEAN_US),
            col.REGISTERS: res.get(col.REGISTERS),
            col.SPILL_BYTES: res.get("spill_store_bytes"),
            col.SHARED_BYTES: res.get(col.SHARED_BYTES),
            col.WALL_S: c.get(col.WALL_S),
            **{f"param_{k}": v for k, v in c[col.PARAMS].items()},
        }
        for n in record.get(col.SIZES, []):
            t = (c.get("times_us") or {}).get(str(n))
            row[f"time_us_{n}"] = t
            row[f"gflops_{n}"] = _rate(family, "flops", n, t)
            row[f"gbps_{n}"] = _rate(family, col.BYTES, n, t)
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
    ok = configs[configs[col.STATUS] == Status.OK] if not configs.empty else configs
    times = ok[col.GEOMEAN_US].astype(float) if not ok.empty else pd.Series(dtype=float)
    default = ok[ok[col.IS_DEFAULT]][col.GEOMEAN_US] if not ok.empty else times
    best = times.min() if not times.empty else None
    default_us = float(default.iloc[0]) if not default.empty else None
    prov = record.get("provenance", {})
    n = len(configs)
    counts = configs[col.STATUS].value_counts() if n else pd.Series(dtype=int)
    evaluated = int(configs[col.WALL_S].notna().sum()) if n else 0
    gpu_wall = configs[col.WALL_S].astype(float).sum() if n else 0.0
    return {
        col.FAMILY: record[col.FAMILY],
        col.VARIANT: record[col.VARIANT],
        col.STATUS: record.get(col.STATUS, "unknown"),
        col.MESSAGE: record.get(col.MESSAGE, ""),
        col.SPACE: record.get(col.SPACE),
        col.STRATEGY: record.get(col.STRATEGY),
        col.SIZES: json.dumps(record.get(col.SIZES, [])),
        col.AXES: json.dumps(record.get(col.AXES, {})),
        col.CONFIGS: n,
        col.OK: int(counts.get(Status.OK, 0)),
        col.INVALID: int(n - counts.get(Status.OK, 0) - counts.get(col.NOT_RUN, 0)),
        col.NOT_RUN: int(counts.get(col.NOT_RUN, 0)),
        col.BEST_ID: (record.get("best") or {}).get("id"),
        col.DEFAULT_ID: record.get(col.DEFAULT_ID),
        col.BEST_US: best,
        col.MEDIAN_US: float(times.median()) if not times.empty else None,
        col.WORST_US: float(times.max()) if not times.empty else None,
        col.DEFAULT_US: default_us,
        col.DEFAULT_OVER_BEST: default_us / best if default_us and best else None,
        col.WORST_OVER_BEST: float(times.max()) / best if best else None,
        col.SWEEP_WALL_S: record.get(col.SWEEP_WALL_S),
        col.COMPILE_WALL_S: record.get(col.COMPILE_WALL_S),
        col.PER_CONFIG_S: gpu_wall / evaluated if evaluated else None,
        col.RESUMED: record.get(col.RESUMED),
        col.RESTARTS: record.get(col.RESTARTS),
        col.GPU: prov.get(col.GPU),
        col.DATE: prov.get(col.DATE),
        col.REPLAYED_FROM: record.get(col.REPLAYED_FROM),
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
        else pd.DataFrame(columns=[col.FAMILY, col.VARIANT, col.CONFIG_ID, col.STATUS])
    )
    return configs, SWEEP_SUMMARY.frame(rows)


def write_analysis(records: list[Path], out_dir: Path, family: Family | None) -> None:
    """Write ``sweep.csv`` and ``sweep_summary.csv`` of a family's sweep records."""
    data = [read_json(p) for p in records]
    configs, summary = sweep_tables(data, family)
    out_dir.mkdir(parents=True, exist_ok=True)
    SWEEP.write(configs, out_dir / SWEEP.name)
    SWEEP_SUMMARY.write(summary, out_dir / SWEEP_SUMMARY.name)
