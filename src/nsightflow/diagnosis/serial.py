"""Atomics serialized on one L2 slice, read against the rate the family measured there.

The slice that holds a hot address executes its atomics one after another. ncu's
share of the slice's throughput peak (``lts__throughput.max``) does not say when that
binds: hotatomic's float adds on one address keep the slice at 47-49% of its peak
whether one thread, one warp or one block issues each (``v0``, ``v1``, ``v2``).
What the recording does measure is the rate the slice served them at: its atomic
sectors (``lts__t_sectors_op_{red,atom}.max``) over ncu's duration.

- A launch *saturates* its slice (:func:`saturated`) where its busiest slice is its
  atomics' (:data:`HOT_TRAFFIC` of the slice's sectors), runs at :data:`SLICE_PCT` of its peak
  or more, and atomics are :data:`ATOMIC_PART` of the launch's L2 sectors or more:
  hotatomic ``v0`` and ``v1`` (570 and 565 sectors per us), histogram ``v0``.
- The family's *serial rate* is the highest rate a saturating launch of the family
  reached on its slice (:func:`family_rate`, written on every row by
  :func:`with_rate`): the slice served at least that fast, so it is the rate other
  launches' atomics are counted at.
- A launch's *serial share* is the time the atomics of the slice that has most of
  them need at that rate over its duration (:func:`serial_share`): hotatomic ``v2``'s 16,384 sectors
  need 28.7 us of its 31.3 us (92%), where its atomics are 3% of its L2 sectors;
  histogram ``v1``'s merge, 16,896 sectors at histogram ``v0``'s 1,374 per us,
  12.3 us of 33.7 us (36%). From :data:`SERIAL_PCT` (ncu's 60% line for a unit) the
  atomics are what the launch waits on (:func:`serialized`).
- Where the grid grows with n, so do they (:func:`growth_us`): the fixed cost a floor
  adds is read beyond their time, not the ideal time, where theirs is longer
  (:func:`nsightflow.diagnosis.floors.grown`).

Pure functions over analysis rows; :func:`with_rate` over the table.
"""

import math
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok, records
from nsightflow.diagnosis.record import msg
from nsightflow.diagnosis.variant_facts import grid_blocks

# of the busiest slice's sectors that are atomics: the slice is theirs
HOT_TRAFFIC = 0.5
# of all L2 sectors that are atomics: a part of the launch's traffic, not a merge tail
ATOMIC_PART = 0.1
# the busiest slice's share of its peak from which its atomics saturate it: ncu's
# 60% line for a unit is too high for atomics on one address, which the slice runs one
# after another below its throughput peak (hotatomic's float adds, 99.8% of its
# sectors atomics on one slice, run it at 47%); the regime's moderate line (40%)
SLICE_PCT = 40.0
# % of the launch the slice's atomics take at the family's rate from which they are
# what it waits on: the line a unit's share of its peak is held to (limiter.BOUND_PCT)
SERIAL_PCT = 60.0


def hot_sectors(row: Mapping[str, Any]) -> float:
    """The atomic sectors of the slice that has most of them (NaN: none measured).

    One address lives in one slice, so this is what that slice executes one after
    another: hotatomic ``v2``'s 16,384, one per block, of its 24,837 L2 atomic sectors
    (the others are counted on other slices).
    """
    hot = num(row, "l2_atomic_sectors_max")
    return hot if ok(hot) and hot > 0 else math.nan


def saturated(row: Mapping[str, Any]) -> bool:
    """The launch's atomics keep their slice busy by ncu's counters (module doc)."""
    total, sectors = num(row, "l2_atomic_sectors"), num(row, "l2_sectors")
    pct, avg = num(row, "l2_slice_max_pct"), num(row, "l2_throughput_pct")
    if not all(ok(v) and v > 0 for v in (total, sectors, pct, avg)):
        return False
    hot, busiest = hot_sectors(row), num(row, "l2_sectors_max")
    if not (ok(hot) and ok(busiest) and hot >= HOT_TRAFFIC * busiest):
        return False  # the busiest slice is not the atomics'
    return pct >= SLICE_PCT and total >= ATOMIC_PART * sectors


def own_rate(row: Mapping[str, Any]) -> float:
    """The busiest slice's atomic sectors per microsecond of the launch (or NaN)."""
    hot, t = hot_sectors(row), num(row, "ncu_time_us")
    return hot / t if ok(hot) and ok(t) and t > 0 else math.nan


def family_rate(rows: Iterable[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The highest rate a saturating launch reached on its slice, with that launch."""
    best: Mapping[str, Any] | None = None
    for row in rows:
        if not (row.get("profiled") and saturated(row)):
            continue
        if best is None or own_rate(row) > own_rate(best):
            best = row
    return best


def with_rate(table: pd.DataFrame) -> pd.DataFrame:
    """The table with the family's serial rate and the launch it comes from on every row."""
    rows = records(table)
    best = family_rate(rows)
    if best is None:
        return table.copy()
    values: dict[str, Any] = {
        col.SLICE_RATE: own_rate(best),
        col.SLICE_RATE_BY: str(best[col.VARIANT]),
        col.SLICE_RATE_SIZE: int(best[col.SIZE]),
        col.SLICE_RATE_SECTORS: hot_sectors(best),
        col.SLICE_RATE_US: num(best, "ncu_time_us"),
    }
    extra = pd.DataFrame(values, index=table.index)  # one block, not five inserts
    return pd.concat([table.drop(columns=list(values), errors="ignore"), extra], axis=1)


def serial_us(row: Mapping[str, Any]) -> float:
    """The time the busiest slice's atomics need at the family's rate (or NaN)."""
    rate = num(row, col.SLICE_RATE)
    hot = hot_sectors(row)
    return hot / rate if ok(rate) and rate > 0 and ok(hot) else math.nan


def _per_block(rows: pd.DataFrame) -> float:
    """The busiest slice's atomic sectors per block of the largest profiled launch."""
    best = math.nan
    for r in records(rows.sort_values(col.SIZE)):
        hot, blocks = hot_sectors(r), num(r, "grid_blocks")
        if r.get("profiled") and ok(hot) and ok(blocks) and blocks > 0:
            best = hot / blocks
    return best


def growth_us(row: Mapping[str, Any], variant: Mapping[str, Any], per: float) -> float:
    """The time the busiest slice's atomics need at this size where they grow with n.

    ``per`` of them per block (:func:`_per_block`), the blocks of the manifest's grid
    at this size, at the family's rate: hotatomic ``v2`` at n = 2^20, 4,096 blocks of
    one each, 7.2 us at 570 per us. NaN where the grid does not grow with n here (twice
    the size launches no more blocks): histogram's ``min(cdiv(n, 256), 1056)`` merges
    1,056 blocks' counts at every measured size, work of a fixed size.
    """
    rate = num(row, col.SLICE_RATE)
    if not (ok(rate) and rate > 0 and ok(per)):
        return math.nan
    here = {col.SIZE: int(row[col.SIZE])}
    blocks = grid_blocks(here, variant)
    twice = grid_blocks({col.SIZE: 2 * here[col.SIZE]}, variant)
    if not (ok(blocks) and ok(twice) and twice > blocks):
        return math.nan
    return per * blocks / rate


def with_growth(
    table: pd.DataFrame, variants: Mapping[str, Mapping[str, Any]]
) -> pd.DataFrame:
    """The table with :func:`growth_us` of every row (:data:`col.SLICE_GROWTH_US`).

    Read over a table :func:`with_rate` wrote; without a family rate, all NaN.
    """
    out = table.copy()
    values = pd.Series(math.nan, index=table.index, dtype=float)
    if col.SLICE_RATE in table.columns:
        for name, part in table.groupby(col.VARIANT):
            per, spec = _per_block(part), variants.get(str(name)) or {}
            for i, r in zip(part.index, records(part), strict=True):
                values[i] = growth_us(r, spec, per)
    out[col.SLICE_GROWTH_US] = values
    return out


def serial_share(row: Mapping[str, Any]) -> float:
    """:func:`serial_us` over ncu's duration, at most 1 (NaN: no family rate)."""
    t = num(row, "ncu_time_us")
    us = serial_us(row)
    return min(us / t, 1.0) if ok(us) and ok(t) and t > 0 else math.nan


def serialized(row: Mapping[str, Any]) -> bool:
    """Its slice's atomics take :data:`SERIAL_PCT` of the launch at the family's rate."""
    share = serial_share(row)
    return ok(share) and 100 * share >= SERIAL_PCT


def rate_evidence(row: Mapping[str, Any]) -> dict[str, Any]:
    """The family's rate as a message: the launch that reached it and its numbers.

    For that launch itself the share it gives is 100% by construction (hotatomic
    ``v0`` at 2^22): the message says the rate is its own.
    """
    own = str(row.get(col.VARIANT)) == str(row.get(col.SLICE_RATE_BY)) and num(
        row, col.SIZE
    ) == num(row, col.SLICE_RATE_SIZE)
    return msg(
        "serial_rate_own" if own else "serial_rate",
        rate=num(row, col.SLICE_RATE),
        by=str(row.get(col.SLICE_RATE_BY) or ""),
        n=int(
            num(row, col.SLICE_RATE_SIZE) if ok(num(row, col.SLICE_RATE_SIZE)) else 0
        ),
        sectors=num(row, col.SLICE_RATE_SECTORS),
        us=num(row, col.SLICE_RATE_US),
    )


def serial_evidence(row: Mapping[str, Any]) -> dict[str, Any]:
    """Why waits of a launch are its atomics': the slice's count, rate and share."""
    return msg(
        "ev_serial_atomics",
        hot=hot_sectors(row),
        total=num(row, "l2_atomic_sectors"),
        need=serial_us(row),
        pct=100 * serial_share(row),
        rate=rate_evidence(row),
    )


WARP = 32  # lanes whose atomics one atomic per warp replaces
FEWEST = 2.0  # the slice's atomics per block from which one per block leaves fewer
# of the L2 atomic sectors on one slice from which the atomics are on one address: ncu
# counts each one-address atomic 1.5 times, 2/3 of it on the address's slice
# (hotatomic, aggatomic, localarray: 66.6-66.7%); histogram's bins spread them
# (33%, 59% under its skewed input), and a warp's lanes need not share a bin
ONE_ADDRESS = 0.65


def fewer_on_slice(row: Mapping[str, Any], per_warp: bool) -> float:
    """How many times fewer atomics the next aggregation leaves on the slice (or NaN).

    Not yet summed per warp: one atomic per warp, at most :data:`WARP` times fewer
    (hotatomic ``v0``: 256 on the slice per block, so 32). Summed per warp: one per
    block, the slice's atomics per block (``v1``: 131,072 for 16,384 blocks, 8).
    Already once per block: not known here (the grid's size decides it); nor where
    the atomics are on several addresses (under :data:`ONE_ADDRESS` on the slice).
    """
    hot, blocks = hot_sectors(row), num(row, "grid_blocks")
    total = num(row, "l2_atomic_sectors")
    if not (ok(hot) and ok(blocks) and blocks > 0 and ok(total) and total > 0):
        return math.nan
    if hot < ONE_ADDRESS * total:
        return math.nan
    per_block = hot / blocks
    if per_block < FEWEST:
        return math.nan
    return per_block if per_warp else min(float(WARP), per_block)


def remedy_share(row: Mapping[str, Any], per_warp: bool) -> tuple[float, float]:
    """The share of the launch the next aggregation removes, and its factor.

    At the family's rate the slice's atomics take :func:`serial_share` of the
    launch; ``k`` times fewer of them leave ``1/k`` of that: hotatomic ``v0`` ->
    one per warp removes 97% of its launch (about 32x; the step achieved 31.5x),
    ``v1`` -> one per block 87% (about 7.6x; achieved 6.98x). NaN where either is
    not known.
    """
    share, k = serial_share(row), fewer_on_slice(row, per_warp)
    if not (ok(share) and ok(k)):
        return math.nan, math.nan
    return share * (1.0 - 1.0 / k), k


def serial_model(row: Mapping[str, Any]) -> tuple[float, dict[str, Any]]:
    """The busiest slice's atomics' time, us, and the rate it assumes, as a message."""
    if ok(serial_us(row)):
        return serial_us(row), msg("serial_model_rate", rate=rate_evidence(row))
    hot, hz = hot_sectors(row), num(row, "sm_hz")
    if not (ok(hot) and ok(hz) and hz > 0):
        return math.nan, {}
    return 1e6 * hot / hz, msg("serial_model_clock", ghz=hz / 1e9)


def fewer_message(
    row: Mapping[str, Any], k: float, removed: float
) -> dict[str, Any] | str:
    """What the next aggregation leaves on the slice, as a message ('' unknown)."""
    if not ok(k):
        return ""
    return msg(
        "advice_fewer_atomics",
        k=k,
        hot=hot_sectors(row),
        need=serial_us(row),
        pct=100 * removed,
        rate=rate_evidence(row),
    )
