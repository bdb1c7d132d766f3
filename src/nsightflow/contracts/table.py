"""One exchanged table: its file, its columns in order, their dtypes, its NA policy.

A stage writes a table with :meth:`Table.write` and the next reads it with
:meth:`Table.read`; both take the columns, the float format and the NA policy from the
declaration, so a writer and its readers cannot disagree. pandas is imported only
inside the methods (the parse stage loads ``ncu_report`` before pandas).
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


class NA(Enum):
    """Which cells of a CSV file read as missing."""

    # pandas' defaults: an empty cell and the strings "NA", "nan", "None", "null"...
    PANDAS = "pandas"
    # only an empty cell: a message or JSON field that says "None" stays that text
    BLANK = "blank"
    # no cell: an empty cell reads as "" (source text of a line that is blank)
    NONE = "none"

    def read_options(self) -> dict[str, Any]:
        """The keyword arguments of ``pandas.read_csv`` that implement the policy."""
        if self is NA.BLANK:
            return {"keep_default_na": False, "na_values": [""]}
        if self is NA.NONE:
            return {"keep_default_na": False}
        return {}


@dataclass(frozen=True)
class Table:
    """A table one stage writes and others read.

    Attributes:
        name: The file's name (``analysis.csv``) or pattern (``<variant>.csv``).
        columns: The columns, in order. With ``more`` they are the leading ones and
            further columns follow (one per metric, per stall reason, per size).
        dtypes: The pandas dtype of each column whose type is fixed (``str``,
            ``float``, ``int``, ``bool``): what a writer puts there and a reader
            may rely on. Columns not named are whatever their values are.
        na: The NA policy of its readers.
        float_format: ``to_csv``'s float format (None: pandas' shortest repr).
        more: Further columns may follow ``columns``.
        empty_ok: A file without a header is a table without rows (a stage that
            had none wrote an empty frame); False: such a file is corrupt, and
            reading it raises pandas' ``EmptyDataError``, which the CLI's error
            boundary reports in one line naming the file.
    """

    name: str
    columns: tuple[str, ...]
    dtypes: Mapping[str, str] = field(default_factory=dict)
    na: NA = NA.PANDAS
    float_format: str | None = None
    more: bool = False
    empty_ok: bool = True

    def __post_init__(self) -> None:
        unknown = sorted(set(self.dtypes) - set(self.columns))
        assert not unknown, f"{self.name}: dtypes of undeclared columns {unknown}"

    def empty(self) -> "pd.DataFrame":
        """The table with its columns and no rows."""
        import pandas as pd

        return pd.DataFrame(columns=list(self.columns))

    def frame(self, rows: Any) -> "pd.DataFrame":
        """Rows (records or lists in column order) as this table."""
        import pandas as pd

        return pd.DataFrame(rows, columns=list(self.columns))

    def read(self, path: Path) -> "pd.DataFrame":
        """The table in ``path`` under its NA policy.

        A file of at most one byte (no header: a stage that had no rows wrote an
        empty frame) reads as a frame without columns.
        """
        import pandas as pd

        if self.empty_ok and Path(path).stat().st_size <= 1:
            return pd.DataFrame()
        frame: pd.DataFrame = pd.read_csv(path, **self.na.read_options())
        return frame

    def read_if_present(self, path: Path) -> "pd.DataFrame | None":
        """:meth:`read`, or None where the file is absent or has no header."""
        path = Path(path)
        if not path.is_file() or path.stat().st_size <= 1:
            return None
        return self.read(path)

    def write(self, frame: "pd.DataFrame", path: Path) -> None:
        """Write ``frame`` to ``path`` (its folder must exist) in this table's format.

        A text cell a spreadsheet would run as a formula is written as text
        (:func:`~nsightflow.contracts.cells.spreadsheet_safe`).
        """
        from nsightflow.contracts.cells import spreadsheet_safe

        safe = spreadsheet_safe(frame)
        safe.to_csv(path, index=False, float_format=self.float_format)
