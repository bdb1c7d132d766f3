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
from typing import IO, TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd


# The types a column may be declared with (Table.dtypes).
STR, FLOAT, INT, BOOL = "str", "float", "int", "bool"


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
        dtypes: The type of each column whose type is fixed (``str``, ``float``,
            ``int``, ``bool``): what a writer puts there and what :meth:`read`
            gives (or refuses the file). Columns not named are whatever their
            values are.
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

    def read(self, path: "Path | IO[bytes]") -> "pd.DataFrame":
        """The table in ``path`` (a file, or its bytes) under its NA policy and dtypes.

        A file of at most one byte (no header: a stage that had no rows wrote an
        empty frame) reads as a frame without columns. A ``str`` column is read as
        text (``007`` stays ``007``); a ``float``, ``int`` or ``bool`` column is
        converted after reading (an integer column read as floats is not
        ``int``).

        Raises:
            ValueError: A column holds a value its declared type cannot hold (text
                in a number column, a missing value in an ``int`` or ``bool``
                one); the message names the file and the column.
        """
        import pandas as pd

        if isinstance(path, Path | str) and self.empty_ok and is_headless(path):
            return pd.DataFrame()
        text = [c for c, kind in self.dtypes.items() if kind == STR]
        frame: pd.DataFrame = pd.read_csv(
            path, dtype=dict.fromkeys(text, "str"), **self.na.read_options()
        )
        return self.typed(frame, getattr(path, "name", path))

    def typed(self, frame: "pd.DataFrame", source: object = "") -> "pd.DataFrame":
        """``frame`` with each declared number or flag column in its dtype.

        The frame is returned as it is where every such column already is.
        """
        out = frame
        for column, kind in self.dtypes.items():
            if kind == STR or column not in frame.columns:
                continue
            cells = frame[column]
            converted = _as(kind, cells, f"{source}: column {column!r} ({kind})")
            if converted is not cells:
                out = out.copy() if out is frame else out
                out[column] = converted
        return out

    def read_if_present(self, path: Path) -> "pd.DataFrame | None":
        """:meth:`read`, or None where the file is absent or has no header."""
        path = Path(path)
        if not path.is_file() or is_headless(path):
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


def is_headless(path: "Path | str") -> bool:
    """Whether ``path`` holds at most one byte: no header, a table without rows."""
    return Path(path).stat().st_size <= 1


def _as(kind: str, cells: "pd.Series", what: str) -> "pd.Series":
    """``cells`` as ``kind`` (``float``, ``int``, ``bool``); the same series if so."""
    import pandas as pd

    api = pd.api.types
    if kind == BOOL:
        if api.is_bool_dtype(cells):
            return cells
        flags = cells.map({True: True, False: False, "True": True, "False": False})
        if flags.isna().any():
            raise ValueError(f"{what}: holds a value that is not True or False")
        return flags.astype(bool)
    if api.is_bool_dtype(cells):
        raise ValueError(f"{what}: holds a value that is not a number")
    if not api.is_numeric_dtype(cells):
        # an empty cell of a table that keeps blank text (NA.NONE) is no number
        given = cells.where(cells != "")
        numbers = pd.to_numeric(given, errors="coerce")
        if (numbers.isna() & given.notna()).any():
            raise ValueError(f"{what}: holds a value that is not a number")
        cells = numbers
    if kind == FLOAT:
        return cells if api.is_float_dtype(cells) else cells.astype(float)
    if api.is_integer_dtype(cells):
        return cells
    if cells.isna().any() or (cells % 1 != 0).any():
        raise ValueError(f"{what}: holds a value that is not a whole number")
    return cells.astype("int64")
