"""Helpers the report's sections share with the diagnosis, and the measurement checks.

The diagnosis rules themselves return records (:mod:`nsightflow.diagnosis.build`);
what stays here: ncu's rule text made readable, relative changes, the top stall reasons
of a launch, and the checks of the measurement section (ncu against event timing,
unstable or throttled samples). Pure functions; no I/O.
"""

import math
import re
from collections.abc import Mapping
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.i18n import T

_SECTION = re.compile(r"@section:[^:@]+:([^@]+)@")
_URL = re.compile(r"@url:([^:@]+):([^@]+)@")


def clean_ncu_text(text: str) -> str:
    """Ncu rule text with its ``@section:..@`` / ``@url:..@`` markup made readable."""
    text = _SECTION.sub(r"*\1*", text)
    return _URL.sub(r"[\1](\2)", text)


def pct_change(before: float, after: float) -> float:
    """Relative change in percent (NaN when undefined)."""
    if before is None or after is None or not before or math.isnan(before):
        return math.nan
    return 100.0 * (after - before) / before


def top_stalls(
    stalls: pd.DataFrame, variant: str, size: int, k: int = 3
) -> pd.DataFrame:
    """The k largest stall reasons of one launch, largest first."""
    rows = stalls[(stalls[col.VARIANT] == variant) & (stalls[col.SIZE] == size)]
    return rows.nlargest(k, col.CYCLES)


def num(row: Mapping[str, Any], key: str) -> float:
    """A numeric cell, NaN when absent."""
    value = row.get(key)
    return math.nan if value is None else float(value)


def ok(value: Any) -> bool:
    """A cell that is present and not NaN."""
    return value is not None and not (isinstance(value, float) and math.isnan(value))


def sum_of(row: Mapping[str, Any], *cols: str) -> float:
    """The sum of the row's present, non-NaN cells among ``cols``."""
    return float(sum(row[c] for c in cols if ok(row.get(c))))


CROSS_CHECK_PCT = 10.0  # ncu vs event timing: beyond this, say so
UNSTABLE_CV = 0.05  # coefficient of variation above which samples are flagged


def measurement_findings(rows: pd.DataFrame) -> list[str]:
    """Disagreements between ncu and event timing, and unstable or throttled samples."""
    found = []
    for record in rows.to_dict("records"):
        found += _launch_checks({str(k): v for k, v in record.items()})
    return found


def _launch_checks(r: dict[str, Any]) -> list[str]:
    """The measurement findings of one variant at one size."""
    found = []
    where = T("where", variant=r[col.VARIANT], n=r[col.SIZE])
    diff = num(r, "ncu_vs_event_pct")
    if not math.isnan(diff) and abs(diff) > CROSS_CHECK_PCT:
        found.append(
            T(
                "ncu_disagrees",
                where=where,
                ncu=r["ncu_time_us"],
                event=r[col.TIME_MEDIAN_US],
                cache=r.get(col.CACHE) or "hot",
                diff=diff,
            )
        )
    cv = num(r, col.CV)
    if not math.isnan(cv) and (cv > UNSTABLE_CV or r.get(col.SETTLED) is False):
        found.append(
            T(
                "unstable",
                where=where,
                cv=100 * cv,
                settled=T(col.SETTLED if r.get(col.SETTLED) else "not_settled"),
                reps=int(r[col.REPS]),
            )
        )
    if r.get(col.THROTTLED) is True:
        found.append(T("throttled", where=where))
    if r.get(col.SHARED_GPU) is True:
        found.append(T("shared_gpu", where=where))
    return found
