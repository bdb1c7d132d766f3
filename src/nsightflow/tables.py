"""The tables stages exchange, each declared once with its columns in order.

A stage writes one of these tables and another reads it; both name the columns
through the declaration here, so renaming a column is one edit. pandas is imported
only when an empty table is made (the parse stage loads ``ncu_report`` first).
"""

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Table:
    """One exchanged table: the file it is written to and its columns, in order."""

    name: str
    columns: tuple[str, ...]

    def empty(self) -> "pd.DataFrame":
        """The table with its columns and no rows."""
        import pandas as pd

        return pd.DataFrame(columns=list(self.columns))


# The tidy timeline both backends produce (results/timeline/<family>/<variant>.csv):
# times in ns from the first activity of the traced sequence of that variant and size,
# bytes only for copies and memsets; ``kind`` one of TIMELINE_KINDS.
TIMELINE = Table(
    "timeline.csv",
    (
        "family",
        "variant",
        "size",
        "kind",
        "name",
        "start_ns",
        "end_ns",
        "bytes",
        "stream",
    ),
)
TIMELINE_KINDS = (
    "memcpy_htod",
    "memset",
    "kernel",
    "memcpy_dtoh",
    "memcpy_dtod",
    "memcpy_other",
)
