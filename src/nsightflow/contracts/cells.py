"""Text cells a spreadsheet would run as formulas, written as text.

:meth:`nsightflow.contracts.Table.write` passes every table through
:func:`spreadsheet_safe`; :func:`as_written` reads such a cell back as it was.
"""

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


# A spreadsheet (Excel, LibreOffice Calc, Google Sheets) reads a cell that starts
# with one of these as a formula: a kernel name or a message "=HYPERLINK(...)" in a
# table would run when its reader opens the CSV. Such a text cell is written with a
# leading ' (the apostrophe spreadsheets show as "this is text"); a cell that reads
# as a number (-1.5, +3, -inf) is a number and stays as it is.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(frame: "pd.DataFrame") -> "pd.DataFrame":
    """``frame`` with every text cell a spreadsheet would run as a formula made text.

    Only columns of text are looked at; the frame is returned as it is when no
    cell needs it (the tables the bundled recording gives are written unchanged).
    """
    import pandas as pd

    out = frame
    for column in frame.columns:
        cells = frame[column]
        if not (
            pd.api.types.is_object_dtype(cells) or pd.api.types.is_string_dtype(cells)
        ):
            continue
        runs = cells.map(_formula).astype(bool)
        if runs.any():
            out = out.copy() if out is frame else out
            out[column] = cells.astype(object).where(~runs, "'" + cells.astype(str))
    return out


def _formula(value: object) -> bool:
    if not isinstance(value, str) or not value.startswith(FORMULA_START):
        return False
    try:
        float(value)
    except ValueError:
        return True
    return False


def as_written(value: str) -> str:
    """A text cell read back as it was before :func:`spreadsheet_safe` quoted it."""
    quoted = value.startswith("'") and _formula(value[1:])
    return value[1:] if quoted else value
