"""The parts of a step's account its body lists, and the rest said in one line (pure).

A step's records carry their parts of the measured change (``share_of_change``); the
body names the primary and the largest others (:func:`listed`), and one sentence
gives what it leaves out (:func:`rest`), so that the step adds up: the smaller
counted factors lumped (the stalls that moved no metric of their own among them,
where they are under a quarter of the change) and the timing against the profile.
"""

import math
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.account import OTHER, TIMING, us_str
from nsightflow.diagnosis.credit import OTHER_STALLS
from nsightflow.i18n import T
from nsightflow.i18n.short_causes import short_cause

REST_US = 0.005  # a rest part smaller than this (us) is not said
LUMPED_SHARE = 0.25  # a cause this share of the step's change or more is named
MAX_SECONDARY = 2


def _float(value: Any) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def rest(found: list[dict[str, Any]], shown: list[dict[str, Any]], de: float) -> str:
    """The parts of the account the sentences above leave out, so the step adds up.

    The smaller causes and the unlisted factors as one part, the timing against the
    profile as another; nothing where the step has no account (no shares).
    """
    parts = [r for r in found if math.isfinite(_float(r.get(col.SHARE_OF_CHANGE)))]
    if not shown or not math.isfinite(de) or de == 0 or len(parts) <= len(shown):
        return ""
    ids = {id(r) for r in shown}
    counted = sum(
        _float(r[col.SHARE_OF_CHANGE]) * de
        for r in parts
        if id(r) not in ids and r[col.RULE] != TIMING
    )
    timing = sum(
        _float(r[col.SHARE_OF_CHANGE]) * de for r in parts if r[col.RULE] == TIMING
    )
    least = min((abs(_part_us(r, de)) for r in shown), default=math.inf)
    lump = T("rest_counted" if abs(counted) < least else "rest_counted_other")
    items = [
        T("rest_item", name=name, us=us_str(us), dir=_dir(us))
        for name, us in (
            (lump, counted),
            (short_cause(TIMING), timing),
        )
        if abs(us) >= REST_US
    ]
    if not items:
        return ""
    return T("step_rest", items=", ".join(items), total=us_str(de), dir=_dir(de))


def _part_us(record: dict[str, Any], de: float) -> float:
    """A record's part of the step's measured change ``de``, in us (NaN: none)."""
    return _float(record.get(col.SHARE_OF_CHANGE)) * de


def listed(
    causes: list[dict[str, Any]], found: list[dict[str, Any]], de: float
) -> list[dict[str, Any]]:
    """The causes a step's body lists: the primary, then the rest by magnitude.

    At least the primary and :data:`MAX_SECONDARY` more; then, largest first, as many
    as it takes for what is left unlisted (the other causes and the unlisted factors,
    said as one lumped part) to be smaller than every listed part, so that the lump
    is never larger than a part named before it (SGEMM v5 at n = 4096: 2,229 us of
    instruction count listed, 2,361 us of "smaller" factors after it), and for no
    cause of a quarter of the change or more to be left in it: a lump nets opposite
    parts, and SGEMM v1's 2,693 us of barrier waits added, 40% of its 6,810 us
    saved, went unnamed inside "1,449 us added".
    """
    if not causes or not math.isfinite(de) or de == 0:
        return causes[: 1 + MAX_SECONDARY]
    rest = sorted(causes[1:], key=lambda r: -abs(_part_us(r, de)))
    # the stalls that moved no metric of their own are a line of their own only as
    # the primary or with a quarter of the change; else they join the lumped rest
    pooled = [r for r in rest if r[col.RULE] == OTHER_STALLS and not _large(r, de)]
    rest = [r for r in rest if r not in pooled]
    other = sum(
        _part_us(r, de)
        for r in found
        if r[col.RULE] == OTHER and math.isfinite(_part_us(r, de))
    ) + sum(_part_us(r, de) for r in pooled)
    shown = [causes[0], *rest[:MAX_SECONDARY]]
    left = rest[MAX_SECONDARY:]
    while left:
        lump = other + sum(_part_us(r, de) for r in left)
        small = abs(_part_us(left[0], de)) < LUMPED_SHARE * abs(de)
        if small and abs(lump) < min(abs(_part_us(r, de)) for r in shown):
            break
        shown.append(left.pop(0))
    return shown


def _large(record: dict[str, Any], de: float) -> bool:
    """A part of a quarter of the step's change or more: never left in a lump."""
    return abs(_part_us(record, de)) >= LUMPED_SHARE * abs(de)


def _dir(us: float) -> str:
    return T("dir_saved" if us < 0 else "dir_added")
