"""Which launch configuration each side of a comparison ran.

A variant with tunable parameters (``-D`` values, block shape) run at another
configuration is other code: its pairs carry the caveat ``config`` and the page names
both configurations, instead of implying that the same program ran slower.
"""

import pandas as pd

from nsightflow.contracts import columns as col


def configuration(a: str | None, b: str | None) -> str:
    """``same``, ``different`` or ``unknown`` (a side does not say what it ran)."""
    if a is None or b is None:
        return "unknown"
    return "same" if a == b else "different"


def mark_configurations(pairs: pd.DataFrame, sources: pd.DataFrame) -> pd.DataFrame:
    """``pairs`` with the caveat ``config`` where the two sides ran other configurations.

    Such a verdict compares two programs, not one program on two runs.
    """
    other = sources[sources[col.CONFIG] == "different"]
    keys = set(zip(other[col.FAMILY], other[col.VARIANT], strict=True))
    if not keys or pairs.empty:
        return pairs
    hit = [
        (f, v) in keys
        for f, v in zip(pairs[col.FAMILY], pairs[col.VARIANT], strict=True)
    ]
    marked = pairs.copy()
    marked.loc[hit, col.CAVEATS] = [
        ";".join([c for c in str(old).split(";") if c] + [col.CONFIG])
        for old in marked.loc[hit, col.CAVEATS]
    ]
    return marked
