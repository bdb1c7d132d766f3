"""The pairs ``nsightflow compare`` could not compare, on its page.

Each is a timing the reader refused in run A or B
(:mod:`nsightflow.analysis.compare_invalid`): counted beside the verdicts and listed
with the message that names the file and the field.
"""

from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.i18n import T
from nsightflow.report.sections.common import table


def code(value: Any) -> str:
    """A value read from a run as a Markdown code span (no backticks or pipes).

    On one line: a line after a break could start a block outside the span.
    """
    text = " ".join(str(value).replace("`", "'").replace("|", "/").splitlines())
    return f"`{text}`" if text else ""


def invalid_count(invalid: pd.DataFrame) -> str:
    """The summary's sentence on the INVALID pairs ("" where there are none)."""
    if invalid.empty:
        return ""
    return T("cmp_invalid_count", k=len(invalid), section=T("h_cmp_invalid"))


def invalid_section(invalid: pd.DataFrame) -> str:
    """The section listing each INVALID pair and why ("" where there are none)."""
    if invalid.empty:
        return ""
    frame = pd.DataFrame(
        {
            T("cmp_col_variant"): (
                invalid[col.FAMILY] + "/" + invalid[col.VARIANT]
            ).map(code),
            "n": [T("cmp_every_size") if pd.isna(n) else n for n in invalid[col.SIZE]],
            T("cmp_col_run"): invalid[col.RUN],
            T("cmp_col_problem"): invalid[col.PROBLEM].map(code),
        }
    )
    intro = T("cmp_invalid_intro")
    return f"## {T('h_cmp_invalid')}\n\n{intro}\n\n{table(frame)}"
