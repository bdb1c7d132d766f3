"""Pairs that cannot be compared: a timing the reader refused in either run.

A time record that breaks its schema (a NaN, negative or day-long median, a size
that is not a size, a size twice, a row without a size) or sits under another
variant's name is not compared: :func:`nsightflow.untrusted.read_rows` takes the
row out (or the record, where the fault is outside its rows) and
:func:`nsightflow.analysis.runs.load_run` lists it in ``Run.invalid``. Here each
becomes an ``INVALID`` pair, named with the file and field in its ``problem``; the
page, ``compare.csv`` and the command's summary line count them with the verdicts.
"""

from typing import Any

import pandas as pd

from nsightflow.analysis.runs import Run
from nsightflow.contracts import COMPARE_INVALID
from nsightflow.contracts import columns as col

INVALID = "INVALID"
# One row per pair that cannot be compared (size NA: no size of it is known).
INVALID_COLUMNS = list(COMPARE_INVALID.columns)


def invalid_pairs(a: Run, b: Run) -> pd.DataFrame:
    """:data:`INVALID_COLUMNS` for every refused timing of run A or B.

    A record refused whole counts once per size the other run timed (once, size NA,
    where it timed none), a row without a size once (size NA); a pair refused in
    both runs is one row naming both.
    """
    found: dict[tuple[Any, ...], dict[str, Any]] = {}
    for side, run, other in (("A", a, b), ("B", b, a)):
        for r in run.invalid.to_dict("records"):
            sizes: list[Any] = [None if pd.isna(r[col.SIZE]) else r[col.SIZE]]
            if r[col.WHOLE]:  # every size the other run timed
                sizes = [*_sizes(other, r[col.FAMILY], r[col.VARIANT])] or [None]
            for size in sizes:
                key = (r[col.FAMILY], r[col.VARIANT], size)
                row = found.setdefault(
                    key, {**dict(zip(INVALID_COLUMNS[:3], key, strict=True))}
                )
                row[col.WHOLE] = bool(row.get(col.WHOLE) or r[col.WHOLE])
                row[col.RUN] = ", ".join(filter(None, [row.get(col.RUN), side]))
                row[col.PROBLEM] = " | ".join(
                    filter(None, [row.get(col.PROBLEM), r[col.PROBLEM]])
                )
    rows = sorted(
        found.values(), key=lambda r: (r[col.FAMILY], r[col.VARIANT], r[col.SIZE] or 0)
    )
    frame = pd.DataFrame(rows, columns=INVALID_COLUMNS)
    return frame.astype({col.SIZE: "Int64", col.WHOLE: bool})


def _sizes(run: Run, family: str, variant: str) -> list[int]:
    t = run.timings
    mine = t[(t[col.FAMILY] == family) & (t[col.VARIANT] == variant)]
    return sorted(int(s) for s in mine[col.SIZE].unique())


def without_invalid(frame: pd.DataFrame, invalid: pd.DataFrame) -> pd.DataFrame:
    """``frame`` (per variant, or per variant and ``size``) less the invalid pairs.

    A variant refused whole is taken out at every size, so it is not also shown as
    a status change or as sizes timed in one run only.
    """
    whole = invalid[invalid[col.WHOLE]]
    drop = _among(frame, [col.FAMILY, col.VARIANT], whole)
    if col.SIZE in frame:
        drop |= _among(frame, [col.FAMILY, col.VARIANT, col.SIZE], invalid)
    return frame[~drop].reset_index(drop=True)


def _among(frame: pd.DataFrame, keys: list[str], rows: pd.DataFrame) -> pd.Series:
    """Whether each row of ``frame`` matches one of ``rows`` on ``keys``."""
    wanted = set(rows[keys].itertuples(index=False, name=None))
    return pd.Series(
        [k in wanted for k in frame[keys].itertuples(index=False, name=None)],
        index=frame.index,
        dtype=bool,
    )
