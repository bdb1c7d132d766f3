"""The floor a suggestion's gain is bounded by, and the noise it must clear (pure).

The floor of a launch is the ideal time at its measured ceiling plus the per-launch
fixed cost the family measured (:func:`fixed_cost`), and never more than the fastest
time any variant of the family measured at that size (:func:`fastest`): a measured
time is reachable, so a floor above it would promise less than is there (SGEMM at
n = 4096 on the H200: cuBLAS 2,683 us, the ceiling plus the fixed cost 2,701 us). A
gain counts where it exceeds ``1 + max(2%, IQR / median)`` of the timing.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok

NOISE_MIN = 0.02  # a gain must exceed 1 + max(2%, IQR / median) of the timing


def fixed_cost(table: pd.DataFrame) -> float:
    """The per-launch fixed cost in us: what no kernel of the family gets under.

    The fastest correct launch at the family's smallest measured size, less its ideal
    time at the measured ceiling (``roof_time_us``): launch, ramp-up and tail
    that do not shrink with the work. An upper estimate, so the floor it makes is one
    a kernel may reach, not one below which a suggestion promises gains.
    """
    need = {col.STATUS, col.TIME_MEDIAN_US, "roof_time_us", col.SIZE}
    if table.empty or not need <= set(table.columns):
        return 0.0
    good = table[
        (table[col.STATUS] == Status.OK)
        & table[col.TIME_MEDIAN_US].notna()
        & table["roof_time_us"].notna()
    ]
    if good.empty:
        return 0.0
    small = good[good[col.SIZE] == good[col.SIZE].min()]
    return max(0.0, float((small[col.TIME_MEDIAN_US] - small["roof_time_us"]).min()))


FASTEST_US = "fastest_us"  # row keys :func:`with_fastest` adds: the size's best time
FASTEST_BY = "fastest_variant"  # and the variant that measured it


Fastest = dict[tuple[str, int], tuple[float, str]]


def _input(row: Mapping[str, Any]) -> str:
    """The row's input (generator arguments; '' for the family's one input)."""
    value = row.get(col.INPUT)
    return value if isinstance(value, str) else ""


def fastest(table: pd.DataFrame) -> Fastest:
    """Per input and size, the least median time of a correct variant, and that variant.

    Per input: a variant on another input (spmv's skewed matrix, histogram's skewed
    bytes) does other work, so its time bounds nothing here.
    """
    need = {col.STATUS, col.TIME_MEDIAN_US, col.SIZE, col.VARIANT}
    if table.empty or not need <= set(table.columns):
        return {}
    good = table[(table[col.STATUS] == Status.OK) & table[col.TIME_MEDIAN_US].notna()]
    out: Fastest = {}
    for _, r in good.sort_values([col.TIME_MEDIAN_US, col.VARIANT]).iterrows():
        key = (_input({str(k): v for k, v in r.items()}), int(r[col.SIZE]))
        out.setdefault(key, (float(r[col.TIME_MEDIAN_US]), str(r[col.VARIANT])))
    return out


def with_fastest(row: Mapping[str, Any], best: Fastest) -> dict[str, Any]:
    """The row with its input's and size's fastest measured time and variant beside it."""
    found = best.get((_input(row), int(row[col.SIZE])))
    out = {str(k): v for k, v in row.items()}
    if found is not None:
        out[FASTEST_US], out[FASTEST_BY] = found
    return out


LIBRARY_US = "library_us"  # row keys :func:`with_library` adds: the library's time
LIBRARY_BY = "library_variant"  # at the row's input and size, and that variant


def with_library(row: Mapping[str, Any], library: Fastest) -> dict[str, Any]:
    """The row with the family's library variant's time at its input and size."""
    found = library.get((_input(row), int(row[col.SIZE])))
    out = dict(row)
    if found is not None:
        out[LIBRARY_US], out[LIBRARY_BY] = found
    return out


def model_floor(row: Mapping[str, Any], fixed: float) -> float:
    """The ideal time at the launch's ceiling plus the fixed cost, in us."""
    roof = num(row, "roof_time_us")
    return roof + fixed if ok(roof) else math.nan


def floor_of(row: Mapping[str, Any], fixed: float) -> tuple[float, str]:
    """The time a launch cannot beat, and the variant that measured it ("": the model).

    The ideal time at its ceiling plus the fixed cost, but never more than the time
    a variant measured at this size (:func:`with_fastest`): a measured time is
    reachable, so a floor above it would promise less than is there.
    """
    library = num(row, LIBRARY_US)
    if ok(library) and library > 0:
        # the vendor library timed at this size is the ceiling here (SGEMM at n = 512:
        # cuBLAS's 17.5 us, where the FP32 peak's ideal plus the overhead measured at
        # n = 256 gives 15.2 us): a bound at this size, measured at this size
        return library, str(row.get(LIBRARY_BY) or "")
    model = model_floor(row, fixed)
    best = num(row, FASTEST_US)
    if ok(best) and best > 0 and not (ok(model) and model <= best):
        return best, str(row.get(FASTEST_BY) or "")
    return model, ""


def floor_us(row: Mapping[str, Any], fixed: float) -> float:
    """The floor of :func:`floor_of`, in us."""
    return floor_of(row, fixed)[0]


def noise(row: Mapping[str, Any]) -> float:
    """The gain a suggestion must exceed to be above the timing's spread."""
    t, iqr = num(row, col.TIME_MEDIAN_US), num(row, col.TIME_IQR_US)
    spread = iqr / t if ok(iqr) and ok(t) and t > 0 else 0.0
    return 1.0 + max(NOISE_MIN, spread)


@dataclass(frozen=True)
class Bound:
    """A mechanism's gain bounded by the floor, and the noise it cleared."""

    gain: float
    floor: float
    noise: float
    floor_by: str = ""
    model: float = math.nan  # the model floor, where a measured time is below it


def bounded(row: Mapping[str, Any], mech: float, fixed: float) -> Bound | None:
    """The bounded gain where it is above the noise, else None."""
    t, (floor, by) = num(row, col.TIME_MEDIAN_US), floor_of(row, fixed)
    if not ok(t) or not ok(mech) or not mech > 1:
        return None
    gain = min(mech, t / floor) if ok(floor) and floor > 0 else mech
    limit = noise(row)
    if not gain > limit:
        return None
    library = num(row, LIBRARY_US)
    # a floor that is the library's own time is the ceiling's ideal time here
    model = library + fixed if ok(library) and library > 0 else model_floor(row, fixed)
    return Bound(gain, floor, limit, by, model)
