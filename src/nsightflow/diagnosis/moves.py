"""Metric facts behind a step's ranked causes: what the step moved.

Each rule compares the launch before the step with the one after it, states its
precondition and stays silent otherwise: both sides measured, a ratio that ncu reports
as 0 or n/a (sectors per request, branch uniformity, conflict share) is not a value,
and the change exceeds the rule's threshold. These are ``info`` records that the report
lists after a step's causes. A single launch's notable state (DRAM traffic against the
ideal, occupancy, register spills) is in :mod:`nsightflow.diagnosis.launch_state`.
Pure functions.
"""

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.causes import CONFLICT_SHARE
from nsightflow.diagnosis.memory import (
    SCATTERED_SECTORS,
    measured_ratio,
    stores_uncoalesced,
)
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, moved, msg
from nsightflow.diagnosis.stand import regime_key, regime_words

SECTORS_MOVED = 0.5  # sectors per request
DRAM_MOVED_PCT = 5.0
OCCUPANCY_MOVED_PP = 5.0
CONFLICTS_FELL_SHARE = 0.05  # a conflict share worth saying it fell from
STALL_MOVED_CYCLES = 0.5  # cycles per issued instruction
STALLS_LISTED = 3
RULE_MOVED_PP = 10.0


def pct_change(before: float, after: float) -> float:
    """Relative change in percent (NaN when undefined)."""
    if not ok(before) or not ok(after) or before == 0:
        return math.nan
    return 100.0 * (after - before) / before


def _both(
    a: Mapping[str, Any], b: Mapping[str, Any], key: str, ratio: bool
) -> tuple[float, float]:
    if ratio:
        return measured_ratio(a, key), measured_ratio(b, key)
    return num(a, key), num(b, key)


def traffic(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    main: tuple[Mapping[str, Any], Mapping[str, Any]] | None = None,
) -> list[Finding]:
    """Sectors per load and store request, DRAM bytes, occupancy, registers moved.

    ``main``: each side's main launch (:func:`~nsightflow.diagnosis.per_launch.main_launch`),
    whose occupancy is said, named, where a side runs several launches.
    """
    found = []
    x, y = _both(a, b, "sectors_per_request", ratio=True)
    if ok(x) and ok(y) and abs(y - x) > SECTORS_MOVED:
        found.append(
            moved(
                "sectors_moved",
                "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / requests",
                x,
                y,
                SECTORS_MOVED,
                reading=msg(_sectors_key(y)),
            )
        )
    found += _stores(a, b)
    x, y = num(a, "dram_bytes"), num(b, "dram_bytes")
    change = pct_change(x, y)
    if ok(change) and abs(change) > DRAM_MOVED_PCT:
        found.append(
            Finding(
                "dram_moved",
                params={col.BEFORE: x / 1e6, col.AFTER: y / 1e6},
                metric="dram__bytes_read.sum + dram__bytes_write.sum",
                before=x,
                after=y,
                threshold=DRAM_MOVED_PCT,
            )
        )
    found += _occupancy(a, b, main)
    x, y = _both(a, b, col.REGISTERS, ratio=True)
    if ok(x) and ok(y) and x != y:
        found.append(moved("registers_moved", "launch__registers_per_thread", x, y))
    return found


def _occupancy(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    main: tuple[Mapping[str, Any], Mapping[str, Any]] | None,
) -> list[Finding]:
    """The achieved occupancy moved: of the main kernels where a side runs several."""
    several = main is not None and any(col.KERNEL in m for m in main)
    x0, y0 = main if main is not None and several else (a, b)
    x, y = _both(x0, y0, "achieved_occupancy_pct", ratio=True)
    if not (ok(x) and ok(y) and abs(y - x) > OCCUPANCY_MOVED_PP):
        return []
    metric = "sm__warps_active.avg.pct_of_peak_sustained_active"
    if not several:
        return [moved("occupancy_moved", metric, x, y, OCCUPANCY_MOVED_PP)]
    kernels = [str(m.get(col.KERNEL) or m.get(col.VARIANT) or "") for m in (x0, y0)]
    return [
        moved(
            "occupancy_moved_main",
            metric + " of the main launch",
            x,
            y,
            OCCUPANCY_MOVED_PP,
            k0=kernels[0],
            k1=kernels[1],
        )
    ]


def _stores(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Finding]:
    """Stores that became coalesced or uncoalesced (by the same evidence as a cause)."""
    if not (_stores_measured(a) and _stores_measured(b)):
        return []
    was, now = stores_uncoalesced(a), stores_uncoalesced(b)
    if (was is None) == (now is None):
        return []
    x = num(a, "global_st_sectors")
    y = num(b, "global_st_sectors")
    return [
        Finding(
            "stores_fixed" if now is None else "stores_broken",
            params={
                col.BEFORE: _zero(x),
                col.AFTER: _zero(y),
                col.EVIDENCE: was if now is None else now,
            },
            metric="l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
            before=x,
            after=y,
        )
    ]


def _stores_measured(row: Mapping[str, Any]) -> bool:
    """Whether any metric that shows store coalescing was measured (and not n/a)."""
    keys = (
        "st_bytes_per_sector",
        "st_sectors_per_request",
        "st_sectors_per_written_sector",
    )
    return any(ok(measured_ratio(row, k)) for k in keys)


def _zero(value: float) -> float:
    return value if ok(value) else 0.0


def _sectors_key(sectors: float) -> str:
    """How to read global load sectors per request (32-byte sectors, 32 lanes).

    A warp's 32 coalesced 4-byte loads touch 4 sectors, its 16-byte loads 16: about
    4 (3.5-5) or about 16 (14-20) is that width, coalesced; fewer than 4 means idle
    lanes or shared addresses; between the two, wider loads or scattered 4-byte
    ones; well beyond 16, scattered addresses.
    """
    if sectors > SCATTERED_SECTORS:
        return "sectors_scattered"
    if sectors < FOUR_BYTE[0]:
        return "sectors_sparse"
    if sectors <= FOUR_BYTE[1]:
        return "sectors_four_byte"
    if SIXTEEN_BYTE[0] <= sectors:
        return "sectors_sixteen_byte"
    return "sectors_dense"


FOUR_BYTE = (3.5, 5.0)  # sectors per request that read as a warp's 4-byte loads
SIXTEEN_BYTE = (14.0, 20.0)  # ... and as its 16-byte loads (20 = SCATTERED_SECTORS)


def conflicts(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Finding]:
    """Shared-memory bank conflicts a step added or removed (loads and stores)."""
    ca = _sum(b, "smem_conflicts_ld", "smem_conflicts_st")
    cb = _sum(a, "smem_conflicts_ld", "smem_conflicts_st")
    share_a = measured_ratio(b, "smem_conflict_share")
    share_b = measured_ratio(a, "smem_conflict_share")
    metric = "`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum`"
    if ca > cb and ok(share_a):
        severity = (
            "conflicts_costly" if share_a >= CONFLICT_SHARE else "conflicts_minor"
        )
        return [
            Finding(
                "conflicts_rose",
                params={
                    col.BEFORE: cb,
                    col.AFTER: ca,
                    col.METRIC: metric,
                    col.SHARE: 100 * share_a,
                    "severity": msg(severity),
                },
                metric=metric.strip("`"),
                before=cb,
                after=ca,
            )
        ]
    if ok(share_b) and share_b >= CONFLICTS_FELL_SHARE and ca < 0.5 * cb:
        after_share = share_a if ok(share_a) else 0.0
        verb = (
            "conflicts_removed"
            if after_share < CONFLICTS_FELL_SHARE
            else ("conflicts_reduced")
        )
        return [
            Finding(
                "conflicts_fell",
                params={
                    "verb": msg(verb),
                    col.BEFORE: cb,
                    col.AFTER: ca,
                    col.METRIC: metric,
                    "share_before": 100 * share_b,
                    "share_after": 100 * after_share,
                },
                metric=metric.strip("`"),
                before=cb,
                after=ca,
            )
        ]
    return []


def _sum(row: Mapping[str, Any], *cols: str) -> float:
    return float(sum(num(row, c) for c in cols if ok(num(row, c))))


def stall_moves(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Finding]:
    """The stall reasons that moved most (cycles per issued instruction)."""
    moved = []
    for key in sorted(set(a) | set(b)):
        if not key.startswith("stall_"):
            continue
        x, y = _zero(num(a, key)), _zero(num(b, key))
        if abs(y - x) >= STALL_MOVED_CYCLES:
            moved.append((key.removeprefix("stall_"), x, y))
    moved.sort(key=lambda t: -abs(t[2] - t[1]))
    return [
        Finding(
            "stall_rose" if y > x else "stall_fell",
            params={
                col.REASON: reason,
                "x": x,
                "y": y,
                col.METRIC: f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio",
            },
            metric=f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio",
            before=x,
            after=y,
            threshold=STALL_MOVED_CYCLES,
        )
        for reason, x, y in moved[:STALLS_LISTED]
    ]


def regime_change(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Finding]:
    """The step moves the kernel to another regime (memory, compute, latency)."""
    x, y = regime_key(a), regime_key(b)
    if not x or not y or x == y:
        return []
    return [
        Finding(
            "regime_changed",
            params={
                col.BEFORE: regime_words(a),
                col.AFTER: regime_words(b),
                col.BASIS: str(b.get("regime_basis") or ""),
            },
            metric=col.REGIME,
            evidence=f"{x} -> {y}",
        )
    ]


def rule_changes(
    rules: pd.DataFrame, before: str, after: str, size: int
) -> list[Finding]:
    """Nsight Compute's optimization rules that appeared or went with a step."""
    if rules.empty:
        return []
    opt = rules[(rules[col.TYPE] == "optimization") & (rules[col.SIZE] == size)]

    def by_rule(variant: str) -> dict[str, float]:
        rows = opt[opt[col.VARIANT] == variant]
        return {
            str(r[col.RULE]): float(r[col.SPEEDUP_PCT]) for r in rows.to_dict("records")
        }

    a, b = by_rule(before), by_rule(after)
    found = [
        Finding("rule_new", params={col.RULE: r, "pct": _pct(b[r])}, metric=r)
        for r in sorted(set(b) - set(a))
    ]
    found += [
        Finding(
            "rule_gone",
            params={col.RULE: r, col.BEFORE: before, "pct": _pct(a[r])},
            metric=r,
        )
        for r in sorted(set(a) - set(b))
    ]
    for r in sorted(set(a) & set(b)):
        if ok(a[r]) and ok(b[r]) and abs(b[r] - a[r]) >= RULE_MOVED_PP:
            found.append(moved("rule_moved", r, a[r], b[r], rule=r))
    return found


def _pct(value: float) -> Any:
    return "n/a" if not ok(value) else msg("up_to_pct", pct=value)
