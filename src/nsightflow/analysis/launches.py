"""The launches of one profiled run, combined: multi-kernel variants as one row.

A multi-kernel variant (e.g. a hierarchical scan: tile scan, scan of the tile sums, add
offsets) is profiled as one run of several launches. The analysis compares variants,
so each (variant, size) gets one value per metric, combined by
:func:`nsightflow.tools.ncu_metrics.launch_rollup`: counts add up, per-instruction ratios are
averaged with each launch's issued instructions as weights, percentages and rates with
each launch's duration, and launch attributes come from the first (main) kernel. The
per-launch split stays available through :func:`launch_table`. Runs of a single launch
pass through untouched. Pure functions.
"""

from collections.abc import Hashable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.tools import ncu_metrics as M

_KEYS = [col.VARIANT, col.SIZE]


def _multi(long: pd.DataFrame) -> pd.Series:
    """Rows that belong to a run of more than one launch."""
    launches = long.groupby(_KEYS)[col.LAUNCH].transform("nunique")
    return launches > 1


def aggregate_launches(long: pd.DataFrame) -> pd.DataFrame:
    """One row per variant, size and metric (the input itself if every run is single).

    Args:
        long: parsed metrics (``variant, size, launch, kernel, metric, value, ...``).

    Returns:
        The same columns; combined rows carry ``launch`` 0 and the kernels joined
        with ``+``.
    """
    if long.empty or col.LAUNCH not in long:
        return long
    multi = _multi(long)
    if not multi.any():
        return long
    many = long[multi]
    # plain lists and arrays: a pandas group, sort and index per (run, metric) was
    # 9% of the analyze and plot process
    keys = list(zip(*(many[k].tolist() for k in (*_KEYS, col.LAUNCH)), strict=True))
    metrics = many[col.METRIC].tolist()
    values = many[col.VALUE].to_numpy(dtype=float)
    weights = {
        name: {
            key: v
            for key, m, v in zip(keys, metrics, values, strict=True)
            if m == metric
        }
        for name, metric in (("time", M.TIME), ("per_instruction", M.INST_EXECUTED))
    }
    groups: dict[tuple[Any, ...], list[int]] = {}
    for i, (key, metric) in enumerate(zip(keys, metrics, strict=True)):
        groups.setdefault((*key[:2], metric), []).append(i)
    records = many.to_dict("records")
    rows = [
        _combine(records, keys, values, sorted(rows, key=lambda i: keys[i][2]), weights)
        for rows in groups.values()
    ]
    combined = pd.DataFrame(rows, columns=long.columns)
    return pd.concat([long[~multi], combined], ignore_index=True)


def _combine(
    records: list[dict[Hashable, Any]],
    keys: list[tuple[Any, ...]],
    all_values: np.ndarray,
    rows: list[int],
    weights: dict[str, dict[tuple[Any, ...], float]],
) -> dict[str, Any]:
    """One metric over the launches of one run (``rows``, in launch order)."""
    first = records[rows[0]]
    row: dict[str, Any] = {str(k): v for k, v in first.items()}
    row[col.LAUNCH] = 0
    row[col.KERNEL] = "+".join(dict.fromkeys(str(records[i][col.KERNEL]) for i in rows))
    rule = M.launch_rollup(str(first[col.METRIC]))
    values = all_values[rows]
    if rule == "first":
        row[col.VALUE] = values[0]
    elif rule == "sum":
        row[col.VALUE] = float(values.sum())
    else:
        launches = [keys[i] for i in rows]
        row[col.VALUE] = _weighted(launches, values, weights.get(rule, weights["time"]))
        if np.isnan(row[col.VALUE]) and rule == "per_instruction":
            row[col.VALUE] = _weighted(launches, values, weights["time"])
    return row


def _weighted(
    launches: list[tuple[Any, ...]],
    values: np.ndarray,
    weight: dict[tuple[Any, ...], float],
) -> float:
    w = np.array([weight.get(key, np.nan) for key in launches], dtype=float)
    if np.isnan(w).any() or w.sum() <= 0:
        return float("nan")
    return float((values * w).sum() / w.sum())


def launch_table(long: pd.DataFrame) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """Per multi-launch run: each launch's kernel, duration and DRAM bytes.

    Returns:
        ``{variant: {size: [{launch, kernel, time_us, dram_bytes, time_share}]}}``
        (sizes as strings, for JSON); single-launch runs are left out.
    """
    if long.empty or col.LAUNCH not in long:
        return {}
    many = long[_multi(long)]
    wanted = many[many[col.METRIC].isin([M.TIME, M.DRAM_READ, M.DRAM_WRITE])]
    if wanted.empty:
        return {}
    wide = wanted.pivot_table(
        index=[*_KEYS, col.LAUNCH, col.KERNEL],
        columns=col.METRIC,
        values=col.VALUE,
        aggfunc="first",
    ).reset_index()
    out: dict[str, dict[str, list[dict[str, Any]]]] = {}
    for _, runs in wide.groupby(_KEYS):
        variant, size = str(runs[col.VARIANT].iloc[0]), int(runs[col.SIZE].iloc[0])
        total = float(runs.get(M.TIME, pd.Series(dtype=float)).sum())
        out.setdefault(variant, {})[str(size)] = [
            {
                col.LAUNCH: int(r[col.LAUNCH]),
                col.KERNEL: str(r[col.KERNEL]),
                "time_us": float(r.get(M.TIME, np.nan)) / 1e3,
                "dram_bytes": float(r.get(M.DRAM_READ, 0.0))
                + float(r.get(M.DRAM_WRITE, 0.0)),
                "time_share": float(r.get(M.TIME, np.nan)) / total
                if total
                else float("nan"),
            }
            for r in runs.sort_values(col.LAUNCH).to_dict("records")
        ]
    return out


# Columns of a launch's own row that are the run's, not the launch's: the event
# timing times the whole run (every launch), so a launch's row keeps ncu's time only.
RUN_ONLY = (col.TIME_MEDIAN_US, col.TIME_IQR_US, col.TIME_MIN_US, "time_max_us")


def launch_long(long: pd.DataFrame, launch: int) -> pd.DataFrame:
    """The metrics of one launch position of every multi-launch run (launch 0: main)."""
    if long.empty or col.LAUNCH not in long:
        return long.iloc[0:0]
    many = long[_multi(long)]
    return many[many[col.LAUNCH] == launch]


def with_launch_rows(
    table: dict[str, dict[str, list[dict[str, Any]]]],
    rows: dict[int, pd.DataFrame],
) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """:func:`launch_table` with each launch's own analysis row under ``row``.

    ``rows``: launch position -> the analysis table built from that launch's metrics
    alone (stall reasons as ``stall_<reason>``). A step between two multi-kernel runs
    splits its change launch by launch with these before it ranks the factors of
    each: reduction's second pass ``reduce_finish`` went 14.1 -> 2.7 us in the step
    whose main kernel went 40.6 -> 20.8 us. Only finite numbers and the strings the
    rules read are kept.
    """
    for variant, sizes in table.items():
        for size, launches in sizes.items():
            for entry in launches:
                frame = rows.get(int(entry[col.LAUNCH]))
                if frame is None or frame.empty:
                    continue
                hit = frame[
                    (frame[col.VARIANT] == variant) & (frame[col.SIZE] == int(size))
                ]
                if not hit.empty:
                    entry["row"] = _cells(hit.iloc[0].to_dict())
    return table


def _cells(row: Mapping[Any, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in row.items():
        if key in RUN_ONLY:
            continue
        if isinstance(value, str) and value:
            out[str(key)] = value
        elif isinstance(value, (bool, np.bool_)):
            out[str(key)] = bool(value)
        elif isinstance(value, (int, float, np.integer, np.floating)) and np.isfinite(
            value
        ):
            out[str(key)] = float(value)
    return out
