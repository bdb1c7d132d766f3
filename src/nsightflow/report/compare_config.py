"""The compare page's lines on configurations: which variants ran another one.

The configurations are data from the runs, set in code spans, never markup.
"""

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.i18n import T
from nsightflow.report.compare_invalid import code


def configuration_lines(sources: pd.DataFrame) -> list[str]:
    """First-screen lines: variants whose sides ran other configurations, unknowns.

    Args:
        sources: :func:`nsightflow.analysis.compare_causes.source_changes`.
    """
    other = sources[sources[col.CONFIG] == "different"]
    lines = []
    if len(other):
        which = "; ".join(
            T(
                "cmp_config_pair",
                variant=code(f"{r['family']}/{r['variant']}"),
                a=code(r[col.CONFIG_A]),
                b=code(r[col.CONFIG_B]),
            )
            for r in other.to_dict("records")
        )
        lines.append(T("cmp_configs", k=len(other), which=which))
    unknown = int((sources[col.CONFIG] == "unknown").sum())
    if unknown:
        lines.append(T("cmp_config_unknown", k=unknown))
    return lines
