"""``summary.csv``: the analysis table's headline columns, one row per variant and size.

The same in every language; light to import (pandas only), so the analyze stage
writes it in its own process (``analyze --summary``).
"""

from pathlib import Path
from typing import Any

import pandas as pd

from nsightflow.analysis.energy import add_energy
from nsightflow.contracts import ANALYSIS, SUMMARY
from nsightflow.contracts import columns as col


def summary_frame(analysis: pd.DataFrame) -> pd.DataFrame:
    """``summary.csv``: one row per variant and size, the columns ARCHITECTURE names.

    ``regime`` is the report's (:func:`~nsightflow.diagnosis.stand.bound_name`): a
    latency-bound row at a unit's peak is bound by that unit (``l1``), as the brief
    and every sentence say.
    """
    from nsightflow.diagnosis.stand import bound_name  # the report's one regime

    out = add_energy(analysis)
    if col.REGIME in out and not out.empty:
        rows: list[dict[str, Any]] = [
            {str(k): v for k, v in r.items()} for r in out.to_dict("records")
        ]
        named = pd.Series(
            [
                bound_name(r) if isinstance(r.get(col.REGIME), str) else None
                for r in rows
            ],
            index=out.index,
            dtype=object,
        )
        out = out.assign(regime=named.where(named != "", None))
    return out.reindex(columns=list(SUMMARY.columns))


def write_csv(frame: pd.DataFrame, path: Path) -> None:
    """Write a summary table (10 significant digits: the same file on any platform)."""
    SUMMARY.write(frame, path)


def write_summary_csv(analysis_csv: Path, out: Path) -> None:
    """Write the summary of the family whose ``analysis.csv`` is ``analysis_csv``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    write_csv(summary_frame(ANALYSIS.read(analysis_csv)), out)
