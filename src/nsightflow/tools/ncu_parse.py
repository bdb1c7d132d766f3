"""Parse stage: ``.ncu-rep`` files (or ncu ``--csv --page raw`` files) to the long table.

Metrics table, one row per launch x metric::

    family, variant, size, launch, kernel, metric, unit, value, rollup

``value`` is in ncu's own unit, named in ``unit`` as ncu gives it. Rule results (ncu's
own guidance, with estimated speedups) go to a second table::

    family, variant, size, launch, kernel, rule, section, type, message, speedup_type,
    speedup_pct

This is the only module that imports ``ncu_report``.
"""

import csv
import json
import multiprocessing
import os
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# ncu_report must load before pandas: ncu_report 2025.3.1 (Nsight Compute's own
# extras/python) segfaults in IMetric.unit() when pyarrow's C++ libraries, which pandas
# loads, are already in the process (reproduced with ncu-report==2025.3.1 + pyarrow).
try:
    import ncu_report as _NCU_REPORT
except ImportError:  # reported with an install hint when a report is read
    _NCU_REPORT = None

import pandas as pd

from nsightflow.errors import ReportParseError

METRIC_COLUMNS = [
    "family",
    "variant",
    "size",
    "launch",
    "kernel",
    "metric",
    "unit",
    "value",
    "rollup",
]
RULE_COLUMNS = [
    "family",
    "variant",
    "size",
    "launch",
    "kernel",
    "rule",
    "section",
    "type",
    "message",
    "speedup_type",
    "speedup_pct",
]
_SIZE = re.compile(r"(?:^|[_\-.])n(\d+)(?:[_\-.]|$)")
_SIZES = re.compile(r"(?:^|[_\-.])n(\d+(?:\+\d+)+)(?:[_\-.]|$)")
_ROLLUPS = ("sum", "avg", "min", "max")


def _ncu_report() -> Any:
    if _NCU_REPORT is None:
        raise ReportParseError(
            "the ncu_report module is not installed: pip install ncu-report (or add "
            "Nsight Compute's extras/python folder to PYTHONPATH)"
        )
    return _NCU_REPORT


def rollup_of(metric: str) -> str:
    """Ncu rollup operation from a metric name (``dram__bytes_read.sum`` -> ``sum``)."""
    for part in metric.split(".")[1:]:
        if part in _ROLLUPS:
            return part
    return ""


def size_from_name(path: Path) -> int | None:
    """Problem size from a file name such as ``n2048.ncu-rep`` or ``v0_n2048.csv``."""
    match = _SIZE.search(path.name.split(".")[0])
    return int(match.group(1)) if match else None


def sizes_from_name(path: Path) -> list[int]:
    """Sizes of a report holding several, in launch order: ``n2048+8192.ncu-rep``."""
    match = _SIZES.search(path.name.split(".")[0])
    return [int(s) for s in match.group(1).split("+")] if match else []


def _file_sizes(path: Path) -> list[int | None]:
    """Sizes named by a file: ``n2048+8192`` -> [2048, 8192], ``n2048`` -> [2048]."""
    return [*sizes_from_name(path)] or [size_from_name(path)]


def _labels(path: Path) -> tuple[dict[str, Any], list[int | None]]:
    """Family and variant of a report, and the size of each of its profiled runs.

    The profile stage profiles all sizes of a variant in one ncu run (one process
    start instead of one per size), so one report holds the launches of each size in
    order; ``profile.json`` beside it (or the ``n<a>+<b>`` file name) says which.
    """
    meta_path = path.parent / "profile.json"
    if meta_path.is_file():
        meta = json.loads(meta_path.read_text())
        entries = [e for e in meta.get("reports", []) if e.get("file") == path.name]
        if entries:
            entries.sort(key=lambda e: e.get("result", 0))
            names = {"family": meta["family"], "variant": meta["variant"]}
            return names, [e["size"] for e in entries]
    return {"family": "", "variant": ""}, _file_sizes(path)


def _per_size(path: Path, sizes: Sequence[int | None], launches: int) -> int:
    """Launches per size in a report: each size's run holds the same launches."""
    if launches % len(sizes):
        raise ReportParseError(
            f"{path}: {launches} profiled launches cannot be split over its "
            f"{len(sizes)} sizes {sizes}; the report is incomplete: re-run the "
            "profile stage"
        )
    return launches // len(sizes)


def read_ncu_rep(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Metrics and rule results of every launch in one ``.ncu-rep`` file.

    Raises:
        ReportParseError: the file is missing, truncated or not an ncu report.
    """
    columns, rules = _read_columns(path)
    return (
        pd.DataFrame(columns, columns=METRIC_COLUMNS),
        pd.DataFrame(rules, columns=RULE_COLUMNS),
    )


# Per metric name, its value kind, unit and rollup never change: look them up once.
_META: dict[str, tuple[int, str, str]] = {}


def _read_columns(path: Path) -> tuple[dict[str, list[Any]], list[dict[str, Any]]]:
    """The metrics of one report as column lists (cheaper than a frame per file)."""
    ncu = _ncu_report()
    if not path.is_file() or path.stat().st_size == 0:
        raise ReportParseError(f"{path}: missing or empty; re-run the profile stage")
    try:
        context = ncu.load_report(str(path))
    except Exception as exc:  # ncu_report raises plain exceptions for bad files
        raise ReportParseError(
            f"{path}: not a readable Nsight Compute report ({exc}); it may be "
            "truncated: re-run the profile stage"
        ) from exc
    names_labels, sizes = _labels(path)
    # Columns as lists: building one dict per metric value dominated the parse time.
    launches: list[int] = []
    kernels: list[str] = []
    names_col: list[str] = []
    units: list[str] = []
    values: list[float] = []
    rollups: list[str] = []
    rules: list[dict[str, Any]] = []
    skip = {ncu.IMetric.ValueKind_STRING, ncu.IMetric.ValueKind_UNKNOWN}
    # The extension's functions, without the per-call Python wrapper methods of
    # IAction / IMetric: the inner loop below runs once per metric value.
    c_api = ncu._ncu_report
    by_name, has_value, as_double = (
        c_api.IAction_metric_by_name,
        c_api.IMetric_has_value,
        c_api.IMetric_as_double,
    )
    launch = 0
    for r in range(context.num_ranges()):
        rng = context.range_by_idx(r)
        for a in range(rng.num_actions()):
            action = rng.action_by_idx(a)
            kernel = action.name()
            names = action.metric_names()
            if not names:
                raise ReportParseError(
                    f"{path}: launch {launch} ({kernel}) has no metrics; the report is "
                    "truncated or corrupt: re-run the profile stage"
                )
            for name in names:
                metric = by_name(action, name)
                if not has_value(metric):
                    continue
                meta = _META.get(name)
                if meta is None:
                    meta = _META[name] = (metric.kind(), metric.unit(), rollup_of(name))
                if meta[0] in skip:
                    continue
                value = as_double(metric)
                if value != value:  # NaN: ncu's placeholders carry no value
                    continue
                launches.append(launch)
                kernels.append(kernel)
                names_col.append(name)
                units.append(meta[1])
                rollups.append(meta[2])
                values.append(value)
            rules += [
                {**names_labels, "launch": launch, "kernel": kernel, **rule}
                for rule in _rule_results(action)
            ]
            launch += 1
    if launch == 0:
        raise ReportParseError(
            f"{path}: holds no profiled launch; it is truncated, or ncu's kernel filter "
            "matched nothing: re-run the profile stage"
        )
    # Launch numbers restart at 0 for each size's run.
    per_size = _per_size(path, sizes, launch)
    for rule in rules:
        rule["size"] = sizes[rule["launch"] // per_size]
        rule["launch"] %= per_size
    columns = {
        **{k: [v] * len(values) for k, v in names_labels.items()},
        "size": [sizes[i // per_size] for i in launches],
        "launch": [i % per_size for i in launches],
        "kernel": kernels,
        "metric": names_col,
        "unit": units,
        "value": values,
        "rollup": rollups,
    }
    return columns, rules


def _rule_results(action: Any) -> list[dict[str, Any]]:
    """Ncu's rule results of one launch: guidance text and estimated speedup."""
    found = []
    for result in action.rule_results_as_dicts():
        message = result.get("rule_message") or {}
        if not message.get("message"):
            continue
        speedup = result.get("speedup_estimation") or {}
        found.append(
            {
                "rule": result.get("rule_identifier", ""),
                "section": result.get("section_identifier", ""),
                "type": _MSG_TYPES.get(int(message.get("type", 0)), "none"),
                "message": message["message"],
                "speedup_type": _SPEEDUP_TYPES.get(
                    int(speedup.get("type", 0)), "unknown"
                )
                if speedup
                else "",
                "speedup_pct": float(speedup.get("speedup", float("nan"))),
            }
        )
    return found


# ncu_report.MsgType_* and SpeedupType_* values (ncu 2025.3 / ncu-report 2026.3).
_MSG_TYPES = {0: "none", 1: "ok", 2: "optimization", 3: "warning", 4: "error"}
_SPEEDUP_TYPES = {0: "unknown", 1: "local", 2: "global"}


def read_ncu_csv(path: Path) -> pd.DataFrame:
    """Metrics of an ``ncu --csv --page raw`` export (header row, units row, launches).

    Raises:
        ReportParseError: the file is not an ncu raw-page CSV.
    """
    with path.open(newline="") as fh:
        lines = [line for line in fh if not line.startswith("==")]
    table = list(csv.reader(lines))
    if len(table) < 2 or "Kernel Name" not in table[0]:
        raise ReportParseError(
            f"{path}: not an ncu raw CSV (no 'Kernel Name' column); export with "
            "ncu --import REPORT --csv --page raw > FILE.csv"
        )
    header, units, data = table[0], table[1], table[2:]
    sizes = _file_sizes(path)
    per_size = _per_size(path, sizes, len(data))
    kernel_col = header.index("Kernel Name")
    rows = []
    for index, record in enumerate(data):
        labels = {"family": "", "variant": "", "size": sizes[index // per_size]}
        launch = index % per_size
        for col, name in enumerate(header):
            if "__" not in name or col >= len(record):
                continue
            raw = _to_float(record[col])
            if raw is None:
                continue
            value, unit = to_base_unit(raw, units[col])
            rows.append(
                {
                    **labels,
                    "launch": launch,
                    "kernel": record[kernel_col],
                    "metric": name,
                    "unit": unit,
                    "value": value,
                    "rollup": rollup_of(name),
                }
            )
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)


_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_COUNTABLE = ("byte", "hz", "inst", "sector", "cycle", "warp", "request", "thread")


def to_base_unit(value: float, unit: str) -> tuple[float, str]:
    """Convert a value from ncu's display unit to the base unit ncu_report uses.

    ``Mbyte`` -> ``byte``, ``us`` -> ``ns``, ``sector/us`` -> ``sector/s``, so that
    ``.ncu-rep`` and CSV inputs give one table. ncu's raw CSV scales units for display unless run with ``--print-units base``.
    """
    num, _, den = unit.partition("/")
    factor = 1.0
    if num in _SECONDS and not den:
        return value * _SECONDS[num] / _SECONDS["ns"], "ns"
    if len(num) > 1 and num[0] in _PREFIX and num[1:] in _COUNTABLE:
        factor *= _PREFIX[num[0]]
        num = num[1:]
    if den in _SECONDS:
        factor /= _SECONDS[den]
        den = "s"
    elif len(den) > 1 and den[0] in _PREFIX and den[1:] in _COUNTABLE:
        factor /= _PREFIX[den[0]]
        den = den[1:]
    return value * factor, num + (f"/{den}" if den else "")


def _to_float(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def expand_inputs(paths: list[Path]) -> list[Path]:
    """Report files named directly or found in named folders, sorted."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found += sorted(path.glob("*.ncu-rep")) + sorted(path.glob("*.csv"))
        elif path.exists():
            found.append(path)
        else:
            raise ReportParseError(f"{path}: no such file or folder")
    return found


_Read = tuple[dict[str, list[Any]] | None, list[Any], str]


def _read_one(path: Path) -> _Read:
    """One report's columns and rules, or its parse error (picklable for a pool)."""
    try:
        cols, rules = _read_columns(path)
    except ReportParseError as exc:
        return None, [], str(exc)
    return cols, rules, ""


def _read_all(paths: list[Path]) -> list[_Read]:
    """Read reports on every CPU the process may use.

    ncu_report is single-threaded and opening reports dominates the parse time.
    """
    workers = min(len(os.sched_getaffinity(0)), 8, len(paths) // 4)
    if workers < 2:
        return [_read_one(p) for p in paths]
    # fork: the children inherit ncu_report loaded before pandas (see the import).
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.map(_read_one, paths, chunksize=max(1, len(paths) // (4 * workers)))


def parse_files(
    paths: list[Path], keep_going: bool = False
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Metrics and rule tables of many reports (``.ncu-rep`` or raw ``.csv``).

    With ``keep_going``, an unreadable report becomes a ``ReportUnreadable`` row of
    type ``error`` in the rules table (shown by the report) instead of an exception.
    """
    columns: dict[str, list[Any]] = {c: [] for c in METRIC_COLUMNS}
    files = expand_inputs(paths)
    reps = [p for p in files if p.suffix != ".csv"]
    csv_frames = [read_ncu_csv(p) for p in files if p.suffix == ".csv"]
    rules: list[dict[str, Any]] = []
    for path, (cols, file_rules, error) in zip(reps, _read_all(reps), strict=True):
        if cols is None:
            if not keep_going:
                raise ReportParseError(error)
            names, sizes = _labels(path)
            rules.append(
                {
                    **names,
                    "size": sizes[0],
                    "launch": 0,
                    "kernel": "",
                    "rule": "ReportUnreadable",
                    "section": "",
                    "type": "error",
                    "message": error,
                    "speedup_type": "",
                    "speedup_pct": float("nan"),
                }
            )
            continue
        for name in METRIC_COLUMNS:
            columns[name] += cols[name]
        rules += file_rules
    metrics = pd.DataFrame(columns, columns=METRIC_COLUMNS)
    if csv_frames:
        metrics = pd.concat([metrics, *csv_frames], ignore_index=True)
    return metrics, pd.DataFrame(rules, columns=RULE_COLUMNS)


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write ``.csv`` or ``.parquet`` by extension (:mod:`nsightflow.tools.tables`)."""
    from nsightflow.tools.tables import write_table as write

    write(frame, path)


def count_launches(metrics: pd.DataFrame) -> int:
    """Profiled launches in a metrics table: one per variant, size, launch and kernel.

    ``launch`` restarts at 0 for each size of a report, so it alone undercounts.
    """
    keys = ["family", "variant", "size", "launch", "kernel"]
    return len(metrics[keys].drop_duplicates()) if len(metrics) else 0
