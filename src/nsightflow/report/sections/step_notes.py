"""Sentences a step adds after its causes.

Its DRAM traffic where it moved, and an initial fill the timing leaves out.
"""

import math
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.i18n import T
from nsightflow.report.sections.quantities import size_text

DRAM_SAID = 1.25  # DRAM bytes after / before (or before / after) said in the body
HIT_SAID = 10.0  # L2 hit rate change, in points, said beside the DRAM bytes


def dram_moved(
    found: list[dict[str, Any]], before: dict[str, Any], after: dict[str, Any]
) -> list[str]:
    """The step's DRAM traffic where it moved by a quarter or more, with the rate.

    SGEMM's 32x32 tiles doubled it (4,333 -> 8,463 MB) while the waits on global
    memory fell: the body says so, with the DRAM's share of its peak that tells
    whether those bytes could limit it (ncu's DRAM throughput, 11% of its peak),
    whether fewer bytes were expected, and the L2 hit rate where it moved by 10
    points or more (60% -> 39%: v0's repeated reads of a row had hit in L2, the
    tiles' loads miss it more often), which is where the extra bytes come from.
    """
    moved = [r for r in found if r[col.RULE] == "dram_moved"]
    if not moved:
        return []
    x, y = _float(moved[0][col.BEFORE]), _float(moved[0][col.AFTER])
    if not (x > 0 and y > 0) or max(x / y, y / x) < DRAM_SAID:
        return []
    expected = [r for r in found if r[col.RULE] == "expected_observed"]
    hoped = bool(expected) and "dram_excess" in str(expected[0][col.METRIC])
    pct = _float(after.get("dram_pct"))  # ncu's dram__throughput
    return [
        T(
            "step_dram_moved",
            before=x / 1e6,
            after=y / 1e6,
            ratio=y / x,
            expected=T("step_dram_expected") if hoped and y > x else "",
            rate=T("step_dram_rate", pct=pct) if not math.isnan(pct) else "",
            l2=_l2_hit(before, after),
        )
    ]


def _l2_hit(before: dict[str, Any], after: dict[str, Any]) -> str:
    """The L2 hit rate's move, where it moved by :data:`HIT_SAID` points or more."""
    x, y = _float(before.get("l2_hit_pct")), _float(after.get("l2_hit_pct"))
    if math.isnan(x) or math.isnan(y) or abs(y - x) < HIT_SAID:
        return ""
    return T("step_dram_l2", before=x, after=y)


def untimed_init(
    variants: dict[str, dict[str, Any]],
    line: pd.DataFrame | None,
    name: str,
    prev: str,
) -> list[str]:
    """Where the step zeroes an output its predecessor did not, that it is untimed.

    Reduction v4 adds into S, zeroed first (``init: {S: zero}``): the sweep zeroes
    it once before the timed launches, which time the kernels alone; a program
    pays that memset per call (the timeline's, where it traced one).
    """
    before = variants[prev].get("init") or {}
    zeroed = [a for a in zeroed_outputs(variants, name) if before.get(a) != "zero"]
    if not zeroed:
        return []
    us, n = traced_memset(line, name)
    traced = T("step_init_traced", us=us, n=size_text(n)) if us > 0 else ""
    names = ", ".join(f"`{a}`" for a in zeroed)
    return [T("step_init_untimed", names=names, traced=traced)]


def zeroed_outputs(variants: dict[str, dict[str, Any]], name: str) -> list[str]:
    """The arguments the variant zeroes before its launch (``init: {S: zero}``)."""
    own = variants[name].get("init") or {}
    return [a for a, how in own.items() if how == "zero"]


def traced_memset(line: pd.DataFrame | None, name: str) -> tuple[float, int]:
    """The variant's memset in its traced sequence, us, and the size traced (0, 0)."""
    if line is None or line.empty or col.MEMSET_NS not in line:
        return 0.0, 0
    for r in line[line[col.VARIANT] == name].to_dict("records")[:1]:
        us = _float(r[col.MEMSET_NS]) / 1e3
        return (us, int(r[col.SIZE])) if us > 0 else (0.0, 0)
    return 0.0, 0


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan
