"""What the compiler built for each variant, for the context the diagnosis reads.

The machine code comes from the parse stage's per-instruction tables (Nsight
Compute's source page: the SASS the profiled launches ran, recorded with the
profile, so a replay reads what was measured, not what this machine's nvcc would
build). Only instructions the profile sampled at least once are listed there, so the
counts are of the instructions that took time; the widths, the atomics and their
aggregation (``REDUX`` beside ``RED``) are what the hot code does. The facts
themselves are read by :func:`nsightflow.tools.compiler_facts.facts`, with ptxas's
resources of the variant's main kernel.
"""

from collections.abc import Mapping
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.tools.compiler_facts import facts


def compiler_entries(
    instructions: pd.DataFrame, per_variant: Mapping[str, Mapping[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per variant, the facts of its main kernel (none where it was not profiled).

    Args:
        instructions: The parse stage's per-instruction tables, concatenated
            (columns ``variant``, ``kernel``, ``launch``, ``pc``, ``sass``).
        per_variant: variant -> stage records; ``resources`` holds ptxas's.
    """
    if instructions.empty or col.SASS not in instructions:
        return {}
    out: dict[str, dict[str, Any]] = {}
    for variant, rows in instructions.groupby(col.VARIANT):
        resources = per_variant.get(str(variant), {}).get("resources", {})
        res = resources.get("resources", {}) or {}
        kernel = res.get(col.KERNEL) or rows[col.KERNEL].iloc[0]
        own = rows[rows[col.KERNEL] == kernel]
        own = own if not own.empty else rows
        unique = own.drop_duplicates([col.PC]).sort_values(col.PC)
        sass = unique[col.SASS].dropna().astype(str).tolist()
        out[str(variant)] = facts(sass, res).as_dict()
    return out
