"""Parse stage: ``.ncu-rep`` files (or ncu ``--csv --page raw`` files) to the long table.

Metrics table, one row per launch x metric::

    family, variant, size, launch, kernel, metric, unit, value, rollup

``value`` is in ncu's own unit, named in ``unit`` as ncu gives it. Rule results (ncu's
own guidance, with estimated speedups) go to a second table::

    family, variant, size, launch, kernel, rule, section, type, message, speedup_type,
    speedup_pct

``ncu_report`` is read in :mod:`nsightflow.tools.ncu_report_io`.
"""

import csv
import multiprocessing
import os
from pathlib import Path
from typing import Any

# ncu_report must load before pandas: ncu_report 2025.3.1 (Nsight Compute's own
# extras/python) segfaults in IMetric.unit() when pyarrow's C++ libraries, which pandas
# loads, are already in the process (reproduced with ncu-report==2025.3.1 + pyarrow).
# ncu_report_io imports it and no pandas, so it must come first.
from nsightflow.tools.ncu_report_io import (  # isort: skip
    expand_parts,
    file_sizes,
    launches_per_size,
    read_columns,
    rollup_of,
)

import pandas as pd

from nsightflow.contracts import METRICS, RULES
from nsightflow.contracts import columns as column_names
from nsightflow.errors import ReportParseError
from nsightflow.tools.profile_layout import ReportPart


def read_ncu_rep(path: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Metrics and rule results of every launch in one ``.ncu-rep`` file.

    Raises:
        ReportParseError: the file is missing, truncated or not an ncu report.
    """
    columns, rules = read_columns(path)
    return (
        METRICS.frame(columns),
        RULES.frame(rules),
    )


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
    sizes = file_sizes(path)
    per_size = launches_per_size(path, sizes, len(data))
    kernel_col = header.index("Kernel Name")
    rows = []
    for index, record in enumerate(data):
        labels = {
            column_names.FAMILY: "",
            column_names.VARIANT: "",
            column_names.SIZE: sizes[index // per_size],
        }
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
                    column_names.LAUNCH: launch,
                    column_names.KERNEL: record[kernel_col],
                    column_names.METRIC: name,
                    column_names.UNIT: unit,
                    column_names.VALUE: value,
                    column_names.ROLLUP: rollup_of(name),
                }
            )
    return METRICS.frame(rows)


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
    """Report files named, found in named folders or named by their profile.json."""
    parts, csvs = expand_parts(paths)
    return list(dict.fromkeys([p.path for p in parts] + csvs))


_Read = tuple[dict[str, list[Any]] | None, list[Any], str]


def _read_one(part: ReportPart) -> _Read:
    """One report part's columns and rules, or its parse error (picklable for a pool)."""
    try:
        cols, rules = read_columns(part)
    except ReportParseError as exc:
        return None, [], str(exc)
    return cols, rules, ""


def _read_all(paths: list[ReportPart]) -> list[_Read]:
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
    columns: dict[str, list[Any]] = {c: [] for c in METRICS.columns}
    reps, csvs = expand_parts(paths)
    csv_frames = [read_ncu_csv(p) for p in csvs]
    rules: list[dict[str, Any]] = []
    for part, (cols, file_rules, error) in zip(reps, _read_all(reps), strict=True):
        if cols is None:
            if not keep_going:
                raise ReportParseError(error)
            rules.append(
                {
                    **part.labels,
                    column_names.SIZE: part.sizes[0] if part.sizes else None,
                    column_names.LAUNCH: 0,
                    column_names.KERNEL: "",
                    column_names.RULE: "ReportUnreadable",
                    column_names.SECTION: "",
                    column_names.TYPE: "error",
                    column_names.MESSAGE: error,
                    column_names.SPEEDUP_TYPE: "",
                    column_names.SPEEDUP_PCT: float("nan"),
                }
            )
            continue
        for name in METRICS.columns:
            columns[name] += cols[name]
        rules += file_rules
    metrics = METRICS.frame(columns)
    if csv_frames:
        metrics = pd.concat([metrics, *csv_frames], ignore_index=True)
    return metrics, RULES.frame(rules)


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write ``.csv`` or ``.parquet`` by extension (:mod:`nsightflow.tools.tables`)."""
    from nsightflow.tools.tables import write_table as write

    write(frame, path)


def count_launches(metrics: pd.DataFrame) -> int:
    """Profiled launches in a metrics table: one per variant, size, launch and kernel.

    ``launch`` restarts at 0 for each size of a report, so it alone undercounts.
    """
    keys = [
        column_names.FAMILY,
        column_names.VARIANT,
        column_names.SIZE,
        column_names.LAUNCH,
        column_names.KERNEL,
    ]
    return len(metrics[keys].drop_duplicates()) if len(metrics) else 0
