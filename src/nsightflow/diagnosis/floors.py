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
from nsightflow.diagnosis.model import num, ok, records
from nsightflow.diagnosis.record import msg

NOISE_MIN = 0.02  # a gain must exceed 1 + max(2%, IQR / median) of the timing


@dataclass(frozen=True)
class Fixed:
    """The family's size-independent fixed cost and the launch that bounds it.

    ``us`` is the bound (never below 0); ``variant`` and ``size`` name the launch that
    took the least beyond its ideal time, ``beyond`` that launch's own excess (below 0
    where it beat its ceiling's rate, so the bound is clipped to 0).
    """

    us: float = 0.0
    variant: str = ""
    size: int = 0
    beyond: float = math.nan
    per_input: bool = False  # read from one of the family's several inputs
    atomics: float = 0.0  # the launch's slice atomics' time it counted as grown with n
    rate: float = math.nan  # the family's slice rate they were counted at


# a ceiling that is a library's measured rate (cuBLAS for SGEMM) is that library's own
# time at every size it ran: its launches beyond it are 0 by construction, not a bound
OWN_CEILINGS = frozenset({"vendor_sgemm"})


def fixed_basis(table: pd.DataFrame, variant: str | None = None) -> Fixed:
    """The per-launch fixed cost in us and its basis: the least any launch takes beyond.

    A cost that does not change with the size is at most what any correct variant took
    beyond its ideal time at the measured ceiling (``roof_time_us``) at any measured
    size, so the bound is the least of ``time - ideal`` over every variant and size,
    not only the smallest size: reduction on the H200 took 5.31 us beyond at n = 2^20
    (v4) but 0.44 us at 2^26, so a fixed cost of 5.31 us would put v4's floor at
    2^24 above its own time. A launch that beat its ceiling's rate (a stream faster
    than the copy the ceiling measured, data resident in L2) gives a bound below 0:
    clipped to 0. Rows whose ceiling is a library's own measured rate
    (:data:`OWN_CEILINGS`) bound nothing and are left out. Where the atomics of a
    launch's busiest L2 slice grow with n and need longer than its ideal time
    (:func:`grown`), that time is the launch's ideal time here.

    ``variant``: the launches of its input only (:func:`same_input`), as
    :func:`fastest` reads them: histogram's skewed ``v4_private_skewed`` took 15.8 us
    beyond its ideal at 2^20 and was bounded by ``v1_private``'s 15.6 us, the merge
    of its blocks' counts on the uniform input, another variant's work.
    """
    need = {col.STATUS, col.TIME_MEDIAN_US, "roof_time_us", col.SIZE, col.VARIANT}
    if table.empty or not need <= set(table.columns):
        return Fixed()
    per_input = False
    if variant is not None:
        own = same_input(table, variant)
        per_input, table = len(own) < len(table), own
    good = table[
        (table[col.STATUS] == Status.OK)
        & table[col.TIME_MEDIAN_US].notna()
        & table["roof_time_us"].notna()
    ]
    if col.REGIME_CEILING in good.columns:
        good = good[~good[col.REGIME_CEILING].isin(OWN_CEILINGS)]
    atomics, beyond = grown(good)
    good, atomics, beyond = (
        good[beyond.notna()],
        atomics[beyond.notna()],
        beyond.dropna(),
    )
    if good.empty:
        return Fixed()
    at = int(beyond.to_numpy(dtype=float).argmin())
    least = float(beyond.iloc[at])
    launch = good.iloc[at]
    return Fixed(
        max(0.0, least),
        str(launch[col.VARIANT]),
        int(launch[col.SIZE]),
        least,
        per_input,
        float(atomics.iloc[at]),
        num({str(k): v for k, v in launch.items()}, col.SLICE_RATE),
    )


def grown(good: pd.DataFrame) -> tuple[pd.Series, pd.Series]:
    """Per launch, its slice atomics' time that grows with n, and its time beyond.

    The atomics of the busiest L2 slice run one after another while the loads go on,
    so a launch takes at least the longer of its ideal time and theirs
    (:func:`nsightflow.diagnosis.serial.growth_us`, where they grow with n; 0
    elsewhere): hotatomic ``v2`` at n = 2^20, 11.3 us, 7.2 us of them against an
    ideal 1.0 us, is 4.1 us beyond, not 10.3 us; at 2^24, 4.2 us beyond their 115 us
    (the ideal 15.8 us and they together would be 11.5 us over its 119.3 us). The
    atomics' time is the family's rate carried to another launch, so a launch they
    explain to within its timing's noise (:func:`noise`) bounds nothing: NaN
    (hotatomic ``v0`` at 2^24, 29,444 us measured against 29,448 us at the rate).
    """
    roof = good["roof_time_us"].astype(float)
    t = good[col.TIME_MEDIAN_US].astype(float)
    zero = pd.Series(0.0, index=good.index)
    over = _growth(good).where(outgrown(good), zero)
    beyond = t - roof.where(over == 0, over)
    spread = pd.Series([noise(r) - 1.0 for r in records(good)], good.index)
    return over, beyond.where((over == 0) | (beyond > spread * t))


def fixed_cost(table: pd.DataFrame, variant: str | None = None) -> float:
    """The per-launch fixed cost in us (:func:`fixed_basis`)."""
    return fixed_basis(table, variant).us


def same_input(table: pd.DataFrame, variant: str) -> pd.DataFrame:
    """The rows of ``table`` on ``variant``'s input (all of them without the column)."""
    if col.INPUT not in table.columns:
        return table
    inputs = table[col.INPUT].astype(object).where(table[col.INPUT].notna(), "")
    own = inputs[table[col.VARIANT] == variant]
    if own.empty:
        return table
    return table[inputs.astype(str) == str(own.iloc[0])]


def basis_message(fixed: Fixed, n: Any = None, why: bool = False) -> dict[str, Any]:
    """How the fixed cost was found, as a message: the launch it is, or why it is 0.

    ``n`` is the size as said (default: the bare size); ``why``: with what the cost
    stands for (launch, ramp-up, tail, work of a fixed size).
    """
    if not fixed.variant:
        return msg("fixed_basis_none")
    size = fixed.size if n is None else n
    if fixed.beyond < 0:
        return msg(
            "fixed_basis_clipped", variant=fixed.variant, n=size, under=-fixed.beyond
        )
    key = ("fixed_basis_why" if why else "fixed_basis") + (
        "_input" if fixed.per_input else ""
    )
    atomics: dict[str, Any] | str = ""
    if fixed.atomics > 0:  # its ideal time here is its slice atomics' (:func:`grown`)
        atomics = msg("fixed_basis_atomics", us=fixed.atomics, rate=fixed.rate)
    return msg(key, variant=fixed.variant, n=size, atomics=atomics)


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


LAUNCH_US = "launch_floor_us"  # row keys :func:`with_fastest` adds: the least time
LAUNCH_BY = "launch_floor_variant"  # any variant of the input took at its smallest
LAUNCH_N = "launch_floor_size"  # size, the variant and that size


def launch_floors(table: pd.DataFrame) -> Fastest:
    """:func:`fastest` over the launches a launch with more work takes no less than.

    Not those whose busiest L2 slice's atomics grow with n and need longer than their
    ideal time (:func:`nsightflow.diagnosis.serial.growth_us`): hotatomic ``v2`` at
    n = 2^20 took 11.3 us, 7.2 us of them, and a variant that issues fewer of them
    takes less at 2^22 than that.
    """
    if table.empty or col.SLICE_GROWTH_US not in table.columns:
        return fastest(table)
    return fastest(table[~outgrown(table)])


def _growth(table: pd.DataFrame) -> pd.Series:
    """:data:`col.SLICE_GROWTH_US` of every launch (0 where the table has none)."""
    if col.SLICE_GROWTH_US not in table.columns:
        return pd.Series(0.0, index=table.index)
    return table[col.SLICE_GROWTH_US].astype(float).fillna(0.0)


def outgrown(table: pd.DataFrame) -> pd.Series:
    """The launches whose slice atomics, growing with n, need longer than their ideal."""
    return _growth(table) > table["roof_time_us"].astype(float)


def with_fastest(
    row: Mapping[str, Any], best: Fastest, launch: Fastest | None = None
) -> dict[str, Any]:
    """The row with its input's and size's fastest measured time and variant beside it.

    And the launch floor: the fastest time at the input's smallest measured size, which
    a launch with more work does not get under (:func:`floor_basis`), of ``launch``
    (:func:`launch_floors`; default ``best``).
    """
    here, size = _input(row), int(row[col.SIZE])
    found = best.get((here, size))
    out = {str(k): v for k, v in row.items()}
    if found is not None:
        out[FASTEST_US], out[FASTEST_BY] = found
    least = best if launch is None else launch
    sizes = [n for (i, n) in least if i == here and n <= size]
    if sizes:
        out[LAUNCH_US], out[LAUNCH_BY] = least[(here, min(sizes))]
        out[LAUNCH_N] = min(sizes)
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


def floor_basis(row: Mapping[str, Any], fixed: float) -> tuple[float, str, int]:
    """The time a launch cannot beat, who measured it ("": the model), and at what size.

    The size is 0 where it is this size. The ideal time at its ceiling plus the fixed cost, but never below the least time
    any variant took at the input's smallest size (a launch with more work takes no
    less: Jacobi-2D on the H200 took at least 5.1 us at n = 512, where the ideal time
    is 0.5 us and the fixed cost, bounded at every size, is 0), and never more than
    the time a variant measured at this size (:func:`with_fastest`): a measured time
    is reachable, so a floor above it would promise less than is there.
    """
    library = num(row, LIBRARY_US)
    if ok(library) and library > 0:
        # the vendor library timed at this size is the ceiling here (SGEMM at n = 512:
        # cuBLAS's 17.5 us, where the FP32 peak's ideal plus the overhead measured at
        # n = 256 gives 15.2 us): a bound at this size, measured at this size
        return library, str(row.get(LIBRARY_BY) or ""), 0
    floor, by, at = model_floor(row, fixed), "", 0
    launch = num(row, LAUNCH_US)
    if ok(launch) and launch > 0 and not (ok(floor) and floor >= launch):
        floor, by = launch, str(row.get(LAUNCH_BY) or "")
        n = int(row.get(LAUNCH_N) or 0)
        at = n if n != int(row[col.SIZE]) else 0
    best = num(row, FASTEST_US)
    if ok(best) and best > 0 and not (ok(floor) and floor <= best):
        return best, str(row.get(FASTEST_BY) or ""), 0
    return floor, by, at


def floor_of(row: Mapping[str, Any], fixed: float) -> tuple[float, str]:
    """The floor of :func:`floor_basis` and the variant that measured it."""
    floor, by, _ = floor_basis(row, fixed)
    return floor, by


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
    floor_n: int = 0  # the size floor_by measured the floor at (0: this size)


def bounded(row: Mapping[str, Any], mech: float, fixed: float) -> Bound | None:
    """The bounded gain where it is above the noise, else None."""
    t, (floor, by, at) = num(row, col.TIME_MEDIAN_US), floor_basis(row, fixed)
    if not ok(t) or not ok(mech) or not mech > 1:
        return None
    gain = min(mech, t / floor) if ok(floor) and floor > 0 else mech
    limit = noise(row)
    if not gain > limit:
        return None
    library = num(row, LIBRARY_US)
    # a floor that is the library's own time is the ceiling's ideal time here
    model = library + fixed if ok(library) and library > 0 else model_floor(row, fixed)
    return Bound(gain, floor, limit, by, model, at)
