"""Diagnosis rules for the ECE408 pattern metrics (divergence, instructions, atomics).

Keyed on metrics, not on families: warp divergence (lane efficiency, branch
uniformity), issued instructions, global atomics in the L2 with their throughput, and
shared-memory atomics with their conflicts. Each finding cites the ncu metric behind
it. Families whose profiles lack these metrics (NaN) get no finding, and a ratio ncu
reports as 0 (branch uniformity of a kernel whose branches it did not sample, lane
efficiency) is n/a, not a value that changed. Pure functions returning records.
"""

import math
from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.memory import measured_ratio
from nsightflow.diagnosis.model import num as _num
from nsightflow.diagnosis.model import ok as _ok
from nsightflow.diagnosis.moves import pct_change
from nsightflow.diagnosis.record import Finding, moved

LOW_LANES_PCT = 75.0  # below this lane efficiency a baseline is called divergent
LANES_MOVED_PCT = 5.0  # lane efficiency / branch uniformity changes worth a line
INSTRUCTIONS_MOVED_PCT = 20.0
ATOMICS_MOVED_FACTOR = 1.25  # atomics or their conflicts that changed by this factor
ATOMIC_RATE_MOVED_PCT = 25.0  # or an L2 atomic throughput that moved this much


def pattern_state(row: Mapping[str, Any]) -> list[Finding]:
    """Divergence and global atomics of one variant at one profiled size."""
    found = []
    lanes = measured_ratio(row, "lane_efficiency_pct")
    if _ok(lanes) and lanes < LOW_LANES_PCT:
        found.append(
            Finding(
                "lanes_low",
                params={"threads": lanes * 32 / 100, "pct": lanes},
                metric="smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
                value=lanes,
                threshold=LOW_LANES_PCT,
            )
        )
    atomics = _num(row, "l2_atomic_sectors")
    time_us = _num(row, "ncu_time_us")
    if _ok(atomics) and atomics > 0 and _ok(time_us) and time_us > 0:
        found.append(
            Finding(
                "l2_atomics",
                params={"sectors": atomics, "rate": atomics / time_us},
                metric="lts__t_sectors_op_red.sum + lts__t_sectors_op_atom.sum",
                value=atomics,
                threshold=0.0,
            )
        )
    return found


def divergence_findings(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Finding]:
    """Lane efficiency, branch uniformity and issued instructions that a step moved."""
    found = []
    la = measured_ratio(after, "lane_efficiency_pct")
    lb = measured_ratio(before, "lane_efficiency_pct")
    if _ok(la) and _ok(lb) and abs(la - lb) >= LANES_MOVED_PCT:
        found.append(
            Finding(
                "lanes_rose" if la > lb else "lanes_fell",
                params={
                    col.BEFORE: lb,
                    col.AFTER: la,
                    "t0": lb * 32 / 100,
                    "t1": la * 32 / 100,
                },
                metric="smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
                before=lb,
                after=la,
                threshold=LANES_MOVED_PCT,
            )
        )
    # 0% uniformity is what ncu reports when it sampled no branch: n/a, not a value
    ba = measured_ratio(after, "branch_uniform_pct")
    bb = measured_ratio(before, "branch_uniform_pct")
    if _ok(ba) and _ok(bb) and abs(ba - bb) >= LANES_MOVED_PCT:
        found.append(
            moved(
                "branches_moved",
                "smsp__sass_average_branch_targets_threads_uniform.pct",
                bb,
                ba,
                LANES_MOVED_PCT,
            )
        )
    ia, ib = _num(after, "inst_executed"), _num(before, "inst_executed")
    change = pct_change(ib, ia)
    if _ok(change) and abs(change) >= INSTRUCTIONS_MOVED_PCT:
        found.append(
            Finding(
                "instructions_moved",
                params={col.BEFORE: ib / 1e6, col.AFTER: ia / 1e6, "pct": change},
                metric="smsp__inst_executed.sum",
                before=ib,
                after=ia,
                threshold=INSTRUCTIONS_MOVED_PCT,
            )
        )
    return found


def atomic_findings(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> list[Finding]:
    """Global atomics in L2 and shared-memory atomics a step moved, with their rates."""
    found = []
    aa, ab = _num(after, "l2_atomic_sectors"), _num(before, "l2_atomic_sectors")
    ta, tb = _num(after, "ncu_time_us"), _num(before, "ncu_time_us")
    if _ok(aa) and _ok(ab) and _ok(ta) and _ok(tb) and max(aa, ab) > 0:
        rate0, rate1 = ab / tb, aa / ta
        if (
            _factor(ab, aa) >= ATOMICS_MOVED_FACTOR
            or abs(pct_change(rate0, rate1)) >= ATOMIC_RATE_MOVED_PCT
        ):
            found.append(
                Finding(
                    "l2_atomics_moved",
                    params={
                        col.BEFORE: ab,
                        col.AFTER: aa,
                        "rate0": rate0,
                        "rate1": rate1,
                    },
                    metric="lts__t_sectors_op_red.sum + lts__t_sectors_op_atom.sum",
                    before=ab,
                    after=aa,
                    threshold=ATOMICS_MOVED_FACTOR,
                )
            )
    sa, sb = _num(after, "shared_atom_inst"), _num(before, "shared_atom_inst")
    if _ok(sa) and _ok(sb) and _factor(sb, sa) >= ATOMICS_MOVED_FACTOR:
        found.append(
            moved(
                "shared_atomics_moved",
                "smsp__sass_inst_executed_op_shared_atom.sum",
                sb,
                sa,
                ATOMICS_MOVED_FACTOR,
            )
        )
    ca, cb = _num(after, "smem_conflicts_atom"), _num(before, "smem_conflicts_atom")
    if _ok(ca) and _ok(cb) and _factor(cb, ca) >= ATOMICS_MOVED_FACTOR:
        found.append(
            Finding(
                "atomic_conflicts_moved",
                params={
                    col.BEFORE: cb,
                    col.AFTER: ca,
                    "per0": _per(cb, sb),
                    "per1": _per(ca, sa),
                },
                metric="l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom.sum",
                before=cb,
                after=ca,
                threshold=ATOMICS_MOVED_FACTOR,
            )
        )
    return found


def _per(count: float, instructions: float) -> str:
    """Count per instruction for the text, ``n/a`` without instructions."""
    return (
        f"{count / instructions:.2f}" if _ok(instructions) and instructions else "n/a"
    )


def _factor(a: float, b: float) -> float:
    """How many times larger the larger of two counts is (inf from zero to non-zero)."""
    low, high = sorted((a, b))
    if high <= 0:
        return 1.0
    return math.inf if low <= 0 else high / low
