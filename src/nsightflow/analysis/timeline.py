"""Timeline analysis: transfer time against kernel time, per variant and size.

Reads every variant's timeline record and table (``results/timeline/<family>/``) and
writes into ``results/analysis/<family>/``:

- ``timeline.csv``: the family's timeline table (:data:`nsightflow.contracts.TIMELINE`);
- ``timeline_summary.csv``: one row per variant and traced size
  (:data:`nsightflow.contracts.TIMELINE_SUMMARY`),
  one row per variant without a trace, carrying its status and message.

The frame functions are pure; only :func:`write_analysis` touches files.
"""

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from nsightflow.contracts import TIMELINE, TIMELINE_SUMMARY, Status
from nsightflow.contracts import columns as col
from nsightflow.io import read_json


def _covered(rows: pd.DataFrame) -> int:
    """Time covered by at least one activity (the union of the intervals)."""
    covered, reach = 0, None
    for start, end in sorted(zip(rows[col.START_NS], rows[col.END_NS], strict=True)):
        if reach is None or start > reach:
            covered += end - start
            reach = end
        elif end > reach:
            covered += end - reach
            reach = end
    return int(covered)


def sequence_summary(rows: pd.DataFrame) -> dict[str, float]:
    """Transfer and kernel figures of one traced sequence (one variant, one size).

    Args:
        rows: Its rows of the timeline table.

    Returns:
        The numeric columns of :data:`~nsightflow.contracts.TIMELINE_SUMMARY`.
    """
    duration = rows[col.END_NS] - rows[col.START_NS]

    def total(kind: str, column: pd.Series = duration) -> float:
        return float(column[rows[col.KIND] == kind].sum())

    htod, dtoh, kernel = total("memcpy_htod"), total("memcpy_dtoh"), total(col.KERNEL)
    htod_b = total("memcpy_htod", rows[col.BYTES].astype(float))
    dtoh_b = total("memcpy_dtoh", rows[col.BYTES].astype(float))
    kernels = rows[rows[col.KIND] == "kernel"]
    gap = np.nan
    if not kernels.empty:
        first = kernels[col.START_NS].min()
        before = rows[rows[col.END_NS] <= first][col.END_NS]
        gap = float(first - before.max()) if not before.empty else np.nan
    return {
        col.HTOD_NS: htod,
        col.HTOD_BYTES: htod_b,
        col.HTOD_GBPS: htod_b / htod if htod else np.nan,
        col.MEMSET_NS: total("memset"),
        col.KERNEL_NS: kernel,
        col.DTOH_NS: dtoh,
        col.DTOH_BYTES: dtoh_b,
        col.DTOH_GBPS: dtoh_b / dtoh if dtoh else np.nan,
        col.TRANSFER_NS: htod + dtoh,
        col.TRANSFER_TO_KERNEL: (htod + dtoh) / kernel if kernel else np.nan,
        col.LAUNCH_GAP_NS: gap,
        col.SPAN_NS: float(rows[col.END_NS].max() - rows[col.START_NS].min()),
        col.OVERLAP_NS: float(duration.sum() - _covered(rows)),
    }


def _record_fields(record: dict[str, Any]) -> dict[str, Any]:
    prov = record.get("provenance", {})
    return {
        col.FAMILY: record[col.FAMILY],
        col.VARIANT: record[col.VARIANT],
        col.BACKEND: record.get(col.BACKEND),
        col.BACKEND_NOTE: record.get(col.BACKEND_NOTE),
        col.GPU: prov.get(col.GPU),
        col.DATE: prov.get(col.DATE),
    }


def summarize(table: pd.DataFrame, records: list[dict[str, Any]]) -> pd.DataFrame:
    """The summary of a family: :data:`~nsightflow.contracts.TIMELINE_SUMMARY`, variants in record order.

    A variant whose trace failed, was skipped or is not recorded keeps one row with
    its status and message; sizes it does not accept show as ``unsupported``.
    """
    out = []
    for record in records:
        fields = _record_fields(record)
        sizes = record.get(col.SIZES, [])
        if record[col.STATUS] != Status.OK or not sizes:
            out.append(
                {
                    **fields,
                    col.STATUS: record[col.STATUS],
                    col.MESSAGE: record[col.MESSAGE],
                }
            )
            continue
        for s in sizes:
            rows = table[
                (table[col.VARIANT] == record[col.VARIANT])
                & (table[col.SIZE] == s[col.SIZE])
            ]
            numbers = sequence_summary(rows) if not rows.empty else {}
            row = {**fields, col.SIZE: s[col.SIZE], col.STATUS: s[col.STATUS]}
            out.append({**row, col.MESSAGE: s.get(col.MESSAGE, ""), **numbers})
    return TIMELINE_SUMMARY.frame(out)


def key_size(summary: pd.DataFrame) -> int | None:
    """The largest size with a trace: the one the figure shows."""
    ok = summary[summary[col.STATUS] == Status.OK][col.SIZE].dropna()
    return int(ok.max()) if not ok.empty else None


def read_family(
    records: list[Path], tables: list[Path]
) -> tuple[pd.DataFrame, list[dict[str, Any]]]:
    """The family's timeline table and the variants' records, from their files."""
    frames = [TIMELINE.read(p) for p in tables]
    frames = [f for f in frames if not f.empty]
    table = (
        pd.concat(frames, ignore_index=True)[list(TIMELINE.columns)]
        if frames
        else TIMELINE.empty()
    )
    return table, [read_json(p) for p in records]


def write_analysis(records: list[Path], tables: list[Path], out_dir: Path) -> None:
    """Write ``timeline.csv`` and ``timeline_summary.csv`` of one family."""
    table, found = read_family(records, tables)
    out_dir.mkdir(parents=True, exist_ok=True)
    TIMELINE.write(table, out_dir / TIMELINE.name)
    TIMELINE_SUMMARY.write(summarize(table, found), out_dir / TIMELINE_SUMMARY.name)
