"""What stages exchange, declared once: the tables, the status values, the folders.

The ground floor of the package (it imports nothing else of nsightflow): a writer and
its readers take a table's columns, dtypes, NA policy and float format from
:mod:`~nsightflow.contracts.tables`, a column's name from
:mod:`~nsightflow.contracts.columns` (``col.TIME_MEDIAN_US``), a record's status from
:class:`~nsightflow.contracts.status.Status`.
"""

from nsightflow.contracts.cells import as_written, spreadsheet_safe
from nsightflow.contracts.status import Status
from nsightflow.contracts.table import NA, Table
from nsightflow.contracts.tables import (
    ANALYSIS,
    CEILINGS,
    COMPARE_COUNTERS,
    COMPARE_INVALID,
    COMPARE_PAIRS,
    COMPARE_RULES,
    COMPARE_SOURCE,
    ENERGY,
    FINDINGS,
    GPU_STATE,
    HOTSPOTS,
    LADDER,
    METRICS,
    RULES,
    RUN_INVALID,
    RUN_TIMINGS,
    SOURCE,
    STALLS,
    SUMMARY,
    SWEEP,
    SWEEP_SUMMARY,
    TABLES,
    TIME_QUARTILES,
    TIMELINE,
    TIMELINE_KINDS,
    TIMELINE_SUMMARY,
    TIMINGS,
)

__all__ = [
    "ANALYSIS",
    "CEILINGS",
    "COMPARE_COUNTERS",
    "COMPARE_INVALID",
    "COMPARE_PAIRS",
    "COMPARE_RULES",
    "COMPARE_SOURCE",
    "ENERGY",
    "FINDINGS",
    "GPU_STATE",
    "HOTSPOTS",
    "LADDER",
    "METRICS",
    "NA",
    "RULES",
    "RUN_INVALID",
    "RUN_TIMINGS",
    "SOURCE",
    "STALLS",
    "SUMMARY",
    "SWEEP",
    "SWEEP_SUMMARY",
    "TABLES",
    "TIMELINE",
    "TIMELINE_KINDS",
    "TIMELINE_SUMMARY",
    "TIME_QUARTILES",
    "TIMINGS",
    "Status",
    "Table",
    "as_written",
    "spreadsheet_safe",
]
