"""A step that changed code and configuration together, split by the sweep (pure).

A variant timed at its sweep's tuned point differs from its predecessor in two
ways: its code, and the configuration the sweep chose (Jacobi-2D's strip-and-float4
step runs BLOCK_X=64, ROWS=2 against its predecessor's 32 and 8). Where the sweep
also timed the new code at the predecessor's configuration (the parameters both
share; the new variant's own values for the rest), the two parts are its two
timings of the same code: configuration = ``t(own) - t(old)``, code = the step's
measured change minus that. Both come from one sweep, so their difference is not
two runs' noise; the ladder's timing of the new variant, a third process, is a
part of its own. Where the sweep did not time that point (a parameter only the new code has
was swept at other values: SGEMM v7's warp tile WN 16 at v6's 128x128 tiles, 8 at
its own 64x256), the new code's fastest time at the predecessor's values of the
shared parameters stands for it, with the values it ran at. Where the sweep timed
no point at the predecessor's values, the report says the two cannot be told apart.

The step's change is then three measured parts that sum to it exactly
(:func:`config_why`): the configuration's, ``t(own) - t(old)`` of the sweep (one
code, two configurations); the code's, ``t(old) - t_prev`` (two codes at one
configuration); and the ladder's timing of the new variant against the sweep's,
``e1 - t(own)`` (one code and configuration timed twice). None is a residual
named as code.
"""

import math
from collections.abc import Mapping
from typing import Any

from nsightflow.contracts import columns as column_names
from nsightflow.diagnosis.account import part_msg
from nsightflow.diagnosis.config_parts import config_split
from nsightflow.diagnosis.record import render
from nsightflow.i18n import T
from nsightflow.report.sections.quantities import size_text, us_text

NEGLIGIBLE = 0.05  # of the step's change: a configuration part this small is not one


def params_text(params: Mapping[str, Any]) -> str:
    """Parameters as ``K=V, ...``, in their order."""
    return ", ".join(f"{k}={v}" for k, v in params.items())


def changes_text(old: Mapping[str, Any], own: Mapping[str, Any]) -> str:
    """The parameters a step changed, old -> new (``BM 128 -> 64, BN 128 -> 256``)."""
    return ", ".join(f"{k} {v} -> {own[k]}" for k, v in old.items() if k in own)


def config_why(
    variants: Mapping[str, Mapping[str, Any]],
    configs: Any,
    step: tuple[str, str],
    n: int,
    times: tuple[float, float],
) -> tuple[str, str]:
    """The Why of a step that changed its configuration too, split by the sweep.

    ``step`` is (variant, predecessor), ``times`` the predecessor's time at ``n`` and
    the step's measured change (us). Returns the sentence, and the counters' sentence
    key that follows it: ``step_counters_why`` where the sweep split the change into
    its three parts (ncu's factors are of code and configuration together),
    ``step_counters_code`` where the configuration's part was negligible (they are the
    code's), "" where the sweep cannot tell the two apart.
    """
    name, prev = step
    t_prev, de = times
    own = variants[name].get(column_names.PARAMS) or {}
    old = variants[prev].get(column_names.PARAMS) or {}
    split = config_split(configs, name, own, old, n)
    if split is None or math.isnan(de) or de == 0 or math.isnan(t_prev):
        return T("step_config_unsplit", variant=name, prev=prev, n=size_text(n)), ""
    config = split.t_own - split.t_old
    code = split.t_old - t_prev
    # every parameter only the new code has, at the value the sweep timed it with
    # (SGEMM v7 at v6's tiles: WN=16, MIN_BLOCKS=2, which v6 lacks; v7's tuned WN is 8)
    extra = {k: split.old.get(k, v) for k, v in own.items() if k not in old}
    # the configuration and the two timings' difference together within 5% of the
    # change (the account's own tolerance): the code made it, and one sentence says so
    # (Jacobi-2D v5: 0.16 and 0.22 of the 20.6 us saved)
    key, counters = "step_config_why", "step_counters_why"
    if abs(config) + abs(de - config - code) <= NEGLIGIBLE * abs(de):
        key, counters = "step_config_none", "step_counters_code"
    return T(
        key,
        variant=name,
        prev=prev,
        changes=changes_text(split.old, own),
        own=" (" + T("config_own_params", params=params_text(extra), prev=prev) + ")"
        if extra
        else "",
        t_old=us_text(split.t_old),
        t_own=us_text(split.t_own),
        config=render("", part_msg(config, de)),
        code=render("", part_msg(code, de)),
        timing=render("", part_msg(de - config - code, de)),
    ), counters
