"""A step's configuration against its code, from the sweep's timings (pure).

A variant timed at its sweep's tuned point differs from its predecessor in its code
and in the configuration the sweep chose. Where the sweep also timed the new code at
the predecessor's configuration, :func:`config_split` returns the two timings of one
code; the report's step (:mod:`nsightflow.report.sections.config_split`) says the
parts, and :func:`config_carries` says where the configuration's is most of the
step: SGEMM ``v7_double_buffer`` at n = 4096, 254 of the 353 us saved against the
double buffering's 92.1 us, whose figure and conclusion then name the configuration
as the primary part, not the code's mechanism.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from nsightflow.contracts import Status
from nsightflow.contracts import columns as column_names
from nsightflow.diagnosis.account import part_msg
from nsightflow.diagnosis.model import num
from nsightflow.diagnosis.record import msg

CARRIES = 0.5  # of the step's change: a configuration part above this carries it


@dataclass(frozen=True)
class ConfigSplit:
    """The sweep's two timings of one variant at one size."""

    old: dict[str, Any]  # the predecessor's values of the parameters that differ
    t_old: float  # us, the new code at the predecessor's configuration
    t_own: float  # us, the new code at its own (the one that ran)


def shared_old(own: Mapping[str, Any], old: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration that is the predecessor's on every parameter both have."""
    return {k: old.get(k, v) for k, v in own.items()}


def config_split(
    configs: pd.DataFrame | None,
    variant: str,
    own: Mapping[str, Any],
    old: Mapping[str, Any],
    n: int,
) -> ConfigSplit | None:
    """The sweep's timings of ``variant`` at ``old``'s configuration and its own.

    None where the configurations do not differ, or the sweep did not time both at
    size ``n``.
    """
    target = shared_old(own, old)
    differ = {k: v for k, v in target.items() if str(v) != str(own[k])}
    column = f"time_us_{n}"
    if configs is None or not differ or column not in configs:
        return None
    rows = configs[
        (configs[column_names.VARIANT] == variant)
        & (configs[column_names.STATUS] == Status.OK)
    ]
    t_own = _time_at(rows, own, column)
    t_old = _time_at(rows, target, column)
    if t_old is None:  # the rest at the sweep's values: its fastest such point
        shared = {k: v for k, v in target.items() if k in old}
        found = _fastest_at(rows, shared, column)
        if found is None:
            return None
        t_old, ran = found
        differ = {k: v for k, v in ran.items() if str(v) != str(own[k])}
    if t_own is None:
        return None
    return ConfigSplit(differ, t_old, t_own)


def _fastest_at(
    rows: pd.DataFrame, params: Mapping[str, Any], column: str
) -> tuple[float, dict[str, Any]] | None:
    """The fastest timed configuration with ``params``: its time and all its values."""
    hit = _matching(rows, params)
    if hit is None:
        return None
    times = pd.to_numeric(hit[column], errors="coerce").dropna()
    if times.empty:
        return None
    best = hit.loc[[times.index[int(times.to_numpy().argmin())]]].iloc[0]
    ran = {
        str(c).removeprefix("param_"): _plain(best[c])
        for c in hit.columns
        if str(c).startswith("param_") and pd.notna(best[c])
    }
    return float(times.min()), ran


def _plain(value: Any) -> Any:
    """A swept value as the manifest writes it (an integer stays an integer)."""
    number = pd.to_numeric(value, errors="coerce")
    if pd.notna(number) and float(number).is_integer():
        return int(number)
    return value.item() if hasattr(value, "item") else value


def _time_at(
    rows: pd.DataFrame, params: Mapping[str, Any], column: str
) -> float | None:
    """The sweep's time of the configuration ``params`` (None if not timed)."""
    hit = _matching(rows, params)
    if hit is None:
        return None
    times = pd.to_numeric(hit[column], errors="coerce").dropna()
    return float(times.iloc[0]) if len(times) else None


def _matching(rows: pd.DataFrame, params: Mapping[str, Any]) -> pd.DataFrame | None:
    """The sweep's rows with ``params``; None where a parameter was not swept."""
    hit = rows
    for key, value in params.items():
        col = f"param_{key}"
        if col not in hit:
            return None
        hit = hit[pd.to_numeric(hit[col], errors="coerce") == float(value)]
    return hit


def config_carries(
    configs: pd.DataFrame | None,
    params: tuple[Mapping[str, Any], Mapping[str, Any]],
    variant: str,
    n: int,
    times: tuple[float, float],
) -> float | None:
    """The configuration's part of a step (us) where it is most of the change.

    ``params``: the predecessor's and the variant's configurations; ``times``: the
    predecessor's timing and the variant's at ``n`` (us). None where the sweep cannot
    split the step, or the configuration's part, ``t(own) - t(old)``, is not more
    than half of the change its way.
    """
    old, own = params
    t_prev, t_new = times
    split = config_split(configs, variant, own, old, n)
    de = t_new - t_prev
    if split is None or not (math.isfinite(de) and de):
        return None
    config = split.t_own - split.t_old
    return config if config / de > CARRIES else None


def carried_why(
    configs: pd.DataFrame | None,
    variants: Mapping[str, Mapping[str, Any]],
    step: tuple[str, str],
    rows: tuple[Mapping[str, Any], Mapping[str, Any]],
) -> dict[str, Any] | None:
    """The conclusion's primary part of a step its configuration carries, or None.

    ``step``: (predecessor, variant); ``rows``: their facts at the key size. SGEMM
    ``v7_double_buffer``: "the configuration (254 of the 353 us saved)", not the
    counters' global-memory latency.
    """
    prev, name = step
    times = (
        num(rows[0], column_names.TIME_MEDIAN_US),
        num(rows[1], column_names.TIME_MEDIAN_US),
    )
    pair = (
        variants[prev].get(column_names.PARAMS) or {},
        variants[name].get(column_names.PARAMS) or {},
    )
    n = int(rows[1].get(column_names.SIZE) or 0)
    config = config_carries(configs, pair, name, n, times)
    if config is None:
        return None
    return msg("why_config", part=part_msg(config, times[1] - times[0]))
