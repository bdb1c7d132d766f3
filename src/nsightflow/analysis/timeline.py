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
from nsightflow.io import read_json


def _covered(rows: pd.DataFrame) -> int:
    """Time covered by at least one activity (the union of the intervals)."""
    covered, reach = 0, None
    for start, end in sorted(zip(rows["start_ns"], rows["end_ns"], strict=True)):
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
    duration = rows["end_ns"] - rows["start_ns"]

    def total(kind: str, column: pd.Series = duration) -> float:
        return float(column[rows["kind"] == kind].sum())

    htod, dtoh, kernel = total("memcpy_htod"), total("memcpy_dtoh"), total("kernel")
    htod_b = total("memcpy_htod", rows["bytes"].astype(float))
    dtoh_b = total("memcpy_dtoh", rows["bytes"].astype(float))
    kernels = rows[rows["kind"] == "kernel"]
    gap = np.nan
    if not kernels.empty:
        first = kernels["start_ns"].min()
        before = rows[rows["end_ns"] <= first]["end_ns"]
        gap = float(first - before.max()) if not before.empty else np.nan
    return {
        "htod_ns": htod,
        "htod_bytes": htod_b,
        "htod_gbps": htod_b / htod if htod else np.nan,
        "memset_ns": total("memset"),
        "kernel_ns": kernel,
        "dtoh_ns": dtoh,
        "dtoh_bytes": dtoh_b,
        "dtoh_gbps": dtoh_b / dtoh if dtoh else np.nan,
        "transfer_ns": htod + dtoh,
        "transfer_to_kernel": (htod + dtoh) / kernel if kernel else np.nan,
        "launch_gap_ns": gap,
        "span_ns": float(rows["end_ns"].max() - rows["start_ns"].min()),
        "overlap_ns": float(duration.sum() - _covered(rows)),
    }


def _record_fields(record: dict[str, Any]) -> dict[str, Any]:
    prov = record.get("provenance", {})
    return {
        "family": record["family"],
        "variant": record["variant"],
        "backend": record.get("backend"),
        "backend_note": record.get("backend_note"),
        "gpu": prov.get("gpu"),
        "date": prov.get("date"),
    }


def summarize(table: pd.DataFrame, records: list[dict[str, Any]]) -> pd.DataFrame:
    """The summary of a family: :data:`~nsightflow.contracts.TIMELINE_SUMMARY`, variants in record order.

    A variant whose trace failed, was skipped or is not recorded keeps one row with
    its status and message; sizes it does not accept show as ``unsupported``.
    """
    out = []
    for record in records:
        fields = _record_fields(record)
        sizes = record.get("sizes", [])
        if record["status"] != Status.OK or not sizes:
            out.append(
                {**fields, "status": record["status"], "message": record["message"]}
            )
            continue
        for s in sizes:
            rows = table[
                (table["variant"] == record["variant"]) & (table["size"] == s["size"])
            ]
            numbers = sequence_summary(rows) if not rows.empty else {}
            row = {**fields, "size": s["size"], "status": s["status"]}
            out.append({**row, "message": s.get("message", ""), **numbers})
    return TIMELINE_SUMMARY.frame(out)


def key_size(summary: pd.DataFrame) -> int | None:
    """The largest size with a trace: the one the figure shows."""
    ok = summary[summary["status"] == Status.OK]["size"].dropna()
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
