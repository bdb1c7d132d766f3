"""What stages exchange, declared once: the tables, the status values, the folders.

The ground floor of the package (it imports nothing else of nsightflow): a writer and
its readers take a table's columns, dtypes, NA policy and float format from
:mod:`~nsightflow.contracts.tables`, a column's name from
:mod:`~nsightflow.contracts.columns` (``col.TIME_MEDIAN_US``), a record's status from
:class:`~nsightflow.contracts.status.Status`.
"""

from nsightflow.contracts.cells import as_written, spreadsheet_safe
from nsightflow.contracts.compare import (
    COMPARE_COUNTERS,
    COMPARE_INVALID,
    COMPARE_PAIRS,
    COMPARE_RULES,
    COMPARE_SOURCE,
    COMPARE_TABLES,
    RUN_INVALID,
    RUN_TIMINGS,
)
from nsightflow.contracts.status import Status
from nsightflow.contracts.table import NA, Table
from nsightflow.contracts.tables import (
    ANALYSIS,
    CEILINGS,
    ENERGY,
    FINDINGS,
    GPU_STATE,
    HOTSPOTS,
    LADDER,
    METRICS,
    RULES,
    SOURCE,
    STAGE_TABLES,
    STALLS,
    SUMMARY,
    SWEEP,
    SWEEP_SUMMARY,
    TIME_QUARTILES,
    TIMELINE,
    TIMELINE_KINDS,
    TIMELINE_SUMMARY,
    TIMINGS,
)

# Every exchanged table: the stages' and the run comparison's.
TABLES = (*STAGE_TABLES, *COMPARE_TABLES)

__all__ = [
    "ANALYSIS",
    "CEILINGS",
    "COMPARE_COUNTERS",
    "COMPARE_INVALID",
    "COMPARE_PAIRS",
    "COMPARE_RULES",
    "COMPARE_SOURCE",
    "COMPARE_TABLES",
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
    "STAGE_TABLES",
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
