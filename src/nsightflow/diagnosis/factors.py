"""What moved for each factor of a step: its detail, metric and evidence.

A step's factors (:func:`nsightflow.diagnosis.step_split.step_terms`) are the
per-instruction part of each stall group, the instruction count, occupancy, clock and
idle SM time. The instruction count is named by its cause where the counts show one
and it made the launch faster: :data:`LANES` where the same thread work filled more
lanes of each warp instruction (less divergence; checked first, as fuller warps also
make each request wider), :data:`WIDER` where the same sectors came in at most half
the load requests (16-byte accesses). Pure functions over analysis rows.
"""

from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok, time_split
from nsightflow.diagnosis.record import msg
from nsightflow.diagnosis.step_split import step_terms, waited_keys, waited_on
from nsightflow.tools import ncu_metrics as M

COUNT = "instruction_count"  # the factor of the instruction-count parts
LOADS_FACTOR = "global_loads"  # the count parts of the waits per global load
WIDER = "wider_accesses"  # the count factor where the loads became fewer and wider
FEWER_REQUESTS = 0.5  # global load requests after / before at most this
LANES = "idle_lanes"  # the count factor where the same work filled more lanes
MORE_LANES = 1.25  # active lanes per instruction after / before at least this
SAME_SECTORS = (0.8, 1.25)  # global load sectors (thread work) after / before within
REQUEST_METRICS = {
    "global_ld_requests": M.GLOBAL_LD_REQUESTS,
    "global_st_requests": M.GLOBAL_ST_REQUESTS,
    "global_ld_sectors": M.GLOBAL_LD_SECTORS,
}
# what a wait is counted per, by its count columns (message key of the unit's name)
PER_UNIT = {
    ("global_ld_requests",): "unit_ld_request",
    ("global_ld_requests", "global_st_requests"): "unit_ldst_request",
    ("global_ld_sectors",): "unit_ld_sector",
}
SAME_COUNT = 0.02  # a count this close to its predecessor's (relative) did not move
# the waits counted per global load, in the order their count is quoted
LOAD_WAITS = ("long_scoreboard", "lg_throttle")
Detail = tuple[dict[str, Any], str, float, float]  # message, metric, before, after


def wider_requests(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[float, float, float, float] | None:
    """Requests and sectors per request of a step to fewer, wider loads, or None.

    Where the step loads the same sectors (within 20%) in at most half the global
    load requests (16-byte accesses, e.g. float4), and the issued instructions fell
    by no larger factor than the requests: wider loads remove load instructions (and
    their address arithmetic), not the rest of the work. Where the instructions fell
    further, the step removed work that wider loads do not explain (scan v1 -> v2:
    requests x0.25 but instructions 46.2 M -> 2.05 M, x0.04, as its tile pass
    dropped the shared-memory tree); that is the instruction count's own change.
    """
    r0, r1 = num(before, "global_ld_requests"), num(after, "global_ld_requests")
    s0, s1 = num(before, "global_ld_sectors"), num(after, "global_ld_sectors")
    if not all(ok(v) and v > 0 for v in (r0, r1, s0, s1)):
        return None
    low, high = SAME_SECTORS
    if r1 > FEWER_REQUESTS * r0 or not low <= s1 / s0 <= high:
        return None
    i0, i1 = num(before, "inst_executed"), num(after, "inst_executed")
    if ok(i0) and ok(i1) and i0 > 0 and i1 / i0 < r1 / r0:
        return None
    return r0, r1, s0 / r0, s1 / r1


def fuller_lanes(
    before: Mapping[str, Any], after: Mapping[str, Any]
) -> tuple[float, float, float, float] | None:
    """Lanes per instruction and thread instructions of a step that fills lanes, or None.

    Where the active lanes per warp instruction rose by a quarter or more and the
    thread instructions (warp instructions x lanes: the work) stayed within 20%: the
    same work in fewer warp instructions, less divergence.
    """
    l0, l1 = num(before, "threads_per_inst"), num(after, "threads_per_inst")
    i0, i1 = num(before, "inst_executed"), num(after, "inst_executed")
    if not all(ok(v) and v > 0 for v in (l0, l1, i0, i1)):
        return None
    low, high = SAME_SECTORS
    if l1 < MORE_LANES * l0 or not low <= (i1 * l1) / (i0 * l0) <= high:
        return None
    return l0, l1, i0 * l0, i1 * l1


def factor_evidence(
    before: Mapping[str, Any], after: Mapping[str, Any], name: str
) -> dict[str, Any]:
    """The counts behind a change of instructions, occupancy or clock."""
    if name in (COUNT, WIDER, LANES, LOADS_FACTOR):

        def m(row: Mapping[str, Any], *keys: str) -> float:
            values = [num(row, k) for k in keys]
            return sum(v for v in values if ok(v)) / 1e6

        return msg(
            "ev_instructions",
            ld0=m(before, "global_ld_requests"),
            ld1=m(after, "global_ld_requests"),
            sh0=m(before, "shared_ld_inst", "shared_st_inst"),
            sh1=m(after, "shared_ld_inst", "shared_st_inst"),
            f0=m(before, "ffma") / 32,
            f1=m(after, "ffma") / 32,
        )
    if name == "occupancy":
        return msg(
            "ev_occupancy",
            r0=_zero(num(before, col.REGISTERS)),
            r1=_zero(num(after, col.REGISTERS)),
            t0=_zero(num(before, "theoretical_occupancy_pct")),
            t1=_zero(num(after, "theoretical_occupancy_pct")),
        )
    if name == "grid_too_small":
        side = min((before, after), key=lambda r: _waves(r))
        return msg(
            "ev_grid_too_small",
            waves=_waves(side),
            blocks=_zero(num(side, "grid_blocks")),
        )
    return msg("ev_clock")


def _waves(row: Mapping[str, Any]) -> float:
    value = num(row, "waves_per_sm")
    return value if ok(value) else float("inf")


def _zero(value: float) -> float:
    return value if ok(value) else 0.0


def detail(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    name: str,
    reasons: tuple[str, ...],
) -> Detail:
    """What moved for one factor: a message, its metric, before and after."""
    if name == "occupancy":
        x, y = (
            num(before, "achieved_occupancy_pct"),
            num(after, "achieved_occupancy_pct"),
        )
        metric = "sm__warps_active.avg.pct_of_peak_sustained_active"
        return msg("detail_occupancy", x=x, y=y), metric, x, y
    if name == "clock":
        x, y = num(before, "sm_hz"), num(after, "sm_hz")
        clock = msg("detail_clock", x=x / 1e9, y=y / 1e9)
        return clock, "sm__cycles_elapsed.avg.per_second", x, y
    if name in (COUNT, LANES, WIDER):
        return _named_count(before, after, name)
    if name == LOADS_FACTOR:
        return _loads_detail(before, after)
    if name == "grid_too_small":
        x, y = _idle_pct(before), _idle_pct(after)
        o0 = num(before, "achieved_occupancy_pct")
        o1 = num(after, "achieved_occupancy_pct")
        grid = msg("detail_grid", x=x, y=y, o0=_zero(o0), o1=_zero(o1))
        return grid, "launch__waves_per_multiprocessor", x, y
    if reasons == ("idle",):
        x, y = _idle_pct(before), _idle_pct(after)
        idle = msg("detail_idle", x=x, y=y)
        return idle, "idle share of gpu__time_duration.sum", x, y
    return _stall_detail(before, after, reasons)


def _named_count(
    before: Mapping[str, Any], after: Mapping[str, Any], name: str
) -> Detail:
    """The instruction count, with the lanes or requests its name comes from."""
    count = _count_detail(before, after)
    lanes = fuller_lanes(before, after) if name == LANES else None
    if lanes is not None:
        l0, l1, t0, t1 = lanes
        said = msg(
            "detail_lanes",
            l0=l0,
            l1=l1,
            t0=t0 / 1e6,
            t1=t1 / 1e6,
            x=num(before, "inst_executed") / 1e6,
            y=num(after, "inst_executed") / 1e6,
        )
        return said, "smsp__thread_inst_executed_per_inst_executed.ratio", l0, l1
    wider = wider_requests(before, after) if name == WIDER else None
    if wider is not None:
        r0, r1, p0, p1 = wider
        said = msg(
            "detail_wider", r0=r0 / 1e6, r1=r1 / 1e6, p0=p0, p1=p1, count=count[0]
        )
        # the factor is the issued instructions' count: quoted as such, the
        # requests beside it (the report's clause reads them from the message)
        return said, count[1], count[2], count[3]
    return count


def _stall_detail(
    before: Mapping[str, Any], after: Mapping[str, Any], reasons: tuple[str, ...]
) -> Detail:
    """A stall group's warp-cycles, per request where its reasons wait for loads.

    A wait counted per global request (or per sector, where the bytes per request
    moved: :func:`~nsightflow.diagnosis.step_split.waited_keys`) is quoted with both the
    count and the wait per unit, and says which moved which way (SGEMM's 32x32
    tiles: fewer requests, 4,295 M -> 134 M, but each waited longer, 47 -> 335
    cycles).
    """
    i0, i1 = num(before, "inst_executed"), num(after, "inst_executed")
    c0 = sum(_cycles(before, r) for r in reasons) * i0
    c1 = sum(_cycles(after, r) for r in reasons) * i1
    text = " + ".join(f"`{r}`" for r in reasons)
    metric = " + ".join(
        f"smsp__average_warps_issue_stalled_{r}_per_issue_active.ratio" for r in reasons
    )
    # per the instructions the reasons wait for, where they share one count (loads)
    bases = {waited_keys(before, after, r) for r in reasons}
    keys = waited_keys(before, after, reasons[0])
    n0, n1 = waited_on(before, after, reasons[0])
    if len(bases) == 1 and n0 and n1:
        counted = " + ".join(REQUEST_METRICS[k] for k in keys)
        per = f" / ({counted})" if len(keys) > 1 else " / " + counted
        said = msg(
            "detail_stalls_per_request",
            reasons=text,
            unit=msg(PER_UNIT[keys]),
            x=c0 / 1e6,
            y=c1 / 1e6,
            cx=c0 / n0,
            cy=c1 / n1,
            ix=n0 / 1e6,
            iy=n1 / 1e6,
            which=_which_moved(c0 / n0, c1 / n1, n0, n1),
        )
        if (c1 / n1 - c0 / n0) * (c1 - c0) < 0:
            # the waits moved with the count, against the wait per request: the
            # count is the number that decides it
            return said, counted, n0, n1
        return said, f"({metric}) x smsp__inst_executed.sum{per}", c0 / n0, c1 / n1
    said = msg(
        "detail_stalls_per_inst",
        reasons=text,
        x=c0 / 1e6,
        y=c1 / 1e6,
        cx=c0 / i0,
        cy=c1 / i1,
    )
    return said, f"({metric}) x smsp__inst_executed.sum", c0 / i0, c1 / i1


def _which_moved(c0: float, c1: float, n0: float, n1: float) -> dict[str, Any]:
    """Which of a wait's count and its wait per unit moved, and which way, in words.

    A count within :data:`SAME_COUNT` of its predecessor is the same count.
    """
    wait = "longer" if c1 > c0 else "shorter"
    if abs(n1 / n0 - 1) < SAME_COUNT:
        return msg(f"moved_same_{wait}")
    count = "fewer" if n1 < n0 else "more"
    # "fewer, and each shorter" where both fell; "fewer, but each longer" otherwise
    joint = "and" if (n1 < n0) == (c1 < c0) else "but"
    return msg(f"moved_{count}_{joint}_{wait}")


def _loads_detail(before: Mapping[str, Any], after: Mapping[str, Any]) -> Detail:
    """The count of global loads the memory waits are counted per, before and after.

    The factor is the count parts of the waits counted per global load (requests,
    or sectors where the request width moved): the loads' count, apart from the
    issued instructions' (Jacobi-2D v2 -> v3: 8.39 M -> 7.34 M load requests while
    the issued instructions rose 79.7 M -> 93.8 M).
    """
    terms = step_terms(before, after)
    parts = {r: _count_part(before, after, r, terms) for r in LOAD_WAITS}
    reason = max(parts, key=lambda r: abs(parts[r]))
    keys = waited_keys(before, after, reason)
    n0, n1 = waited_on(before, after, reason)
    said = msg(
        "detail_global_loads",
        unit=msg(PER_UNIT[keys] + "_pl"),
        unit_one=msg(PER_UNIT[keys]),
        x=n0 / 1e6,
        y=n1 / 1e6,
        ratio=n1 / n0 if n0 else 0.0,
        metric=" + ".join(REQUEST_METRICS[k] for k in keys),
        reasons=" + ".join(
            f"`{r}`"
            for r in LOAD_WAITS
            if parts[r] and waited_keys(before, after, r) == keys
        ),
    )
    return said, " + ".join(REQUEST_METRICS[k] for k in keys), n0, n1


def _count_part(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    reason: str,
    terms: Mapping[str, float],
) -> float:
    """The size of ``reason``'s count change (warp-cycles at the mean wait), or 0."""
    n0, n1 = waited_on(before, after, reason)
    if not (n0 and n1 and terms):
        return 0.0
    c0, c1 = _cycles(before, reason), _cycles(after, reason)
    i0, i1 = num(before, "inst_executed"), num(after, "inst_executed")
    return (n1 - n0) * (c0 * i0 / n0 + c1 * i1 / n1) / 2


def _count_detail(before: Mapping[str, Any], after: Mapping[str, Any]) -> Detail:
    """The instruction count, and the lanes that work in each instruction."""
    i0, i1 = num(before, "inst_executed"), num(after, "inst_executed")
    l0, l1 = num(before, "threads_per_inst"), num(after, "threads_per_inst")
    lanes = (
        msg("lanes_per_inst", x=l0, y=l1)
        if ok(l0) and ok(l1) and l0 > 0 and l1 > 0
        else msg("lanes_not_measured")
    )
    detail = msg(
        "detail_instruction_count",
        x=i0 / 1e6,
        y=i1 / 1e6,
        ratio=i1 / i0,
        lanes=lanes,
    )
    return detail, "smsp__inst_executed.sum", i0, i1


def _cycles(row: Mapping[str, Any], reason: str) -> float:
    """Warp cycles per issued instruction of one reason (``selected``: 1, the issue)."""
    if reason == "selected":
        return 1.0
    value = num(row, f"stall_{reason}")
    return value if ok(value) else 0.0


def _idle_pct(row: Mapping[str, Any]) -> float:
    """% of ncu's time the SMs sat idle (0 without the counts or when none)."""
    split = time_split(row)
    return 0.0 if split is None else 100 * split["idle"] / num(row, "ncu_time_us")
