"""A step's account: its measured time change in parts that add up to it exactly (pure).

The ranked causes of a step (:func:`nsightflow.diagnosis.steps.step_causes`, checked
by :func:`nsightflow.diagnosis.revise.revise`) carry ``share``: each one's fraction of
ncu's time change ``dn = t1 - t0`` (two profiled launches). The shares of the factors
come from the exact split of :func:`nsightflow.diagnosis.step_split.step_terms`,
``ln(t1/t0) = sum_k term_k`` with each term its factor's part over the log mean of
the two times, ``part_k = term_k x L(t0, t1)``, so that ``sum_k part_k = t1 - t0``
exactly; the parts are taken in order there (the savings on the first launch's
time, the additions on what is left), so that no saving exceeds ``t0`` and no
addition exceeds ``t1``.

The step is measured by its event timing, ``de = e1 - e0`` (the medians the body's
outcome and the verdict read). Its account (:func:`account`) is:

- each listed cause: ``share x dn`` microseconds;
- *other factors*: the factors too small to be listed, ``dn - sum(listed)``;
- *timing against profile*: ``de - dn``, what the timing saw that ncu's single
  launch of each side did not (another clock, another cache state);

so the parts sum to ``de`` by construction, and each record's ``share`` becomes its
part over ``de``: a step's shares, residuals included, sum to 1. A step without a
measurable change (or one the counters do not show) keeps its single record of
share 1. Each cause's sentence quotes its part as "x of the y us saved" (or added).
"""

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.model import num, ok, time_split
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.diagnosis.step_split import ordered_parts

UNRANKED = ("step_unchanged", "step_not_in_counters")  # one record, share 1
OTHER = "other_factors"  # the factors too small to be listed
TIMING = "timing_residual"  # the event timing's change minus ncu's
RESIDUALS = (OTHER, TIMING)


def changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> tuple[float, float]:
    """The time change of ncu's launches and the measured (event-timed) one, in us."""
    dn = num(after, "ncu_time_us") - num(before, "ncu_time_us")
    de = num(after, col.TIME_MEDIAN_US) - num(before, col.TIME_MEDIAN_US)
    return dn, de if ok(de) else dn


def us_str(us: float) -> str:
    """A time as a reader says it: 6,808 / 73.7 / 2.32 / 0.018 (us, no sign)."""
    x = abs(us)
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}" if x >= 0.1 else f"{x:.2g}"


def part_msg(us: float, total: float) -> dict[str, Any]:
    """``us`` of a step's ``total`` change as a message: "3.1 of the 9.8 us saved".

    A part larger than the net change, or against it, is said on its own ("13,406 us
    saved", "3 us added"): "13,406 of the 6,808" reads as a typo; the step's last
    sentence gives the net the parts add up to.
    """
    direction = msg("dir_saved" if total < 0 else "dir_added")
    if us * total >= 0 and abs(us) <= abs(total):
        return msg("part_with", us=us_str(us), total=us_str(total), dir=direction)
    if us * total >= 0:  # larger than the step's net change: others offset it
        return msg("part_over", us=us_str(us), total=us_str(total), dir=direction)
    own = msg("dir_saved" if us < 0 else "dir_added")
    return msg(
        "part_against", us=us_str(us), own=own, total=us_str(total), dir=direction
    )


REST = "rest"  # the step's log change less the named factors' terms


def time_shares(
    before: Mapping[str, Any], after: Mapping[str, Any], terms: Mapping[str, float]
) -> dict[str, float]:
    """Each named factor's fraction of ncu's change, the factors of a product.

    ``terms``: the named factors' log terms (DRAM bytes over the achieved rate, say);
    what they leave of ``ln(t1/t0)`` is one more factor (:data:`REST`), and the parts
    are :func:`~nsightflow.diagnosis.step_split.ordered_parts`'. NaN shares where a
    time is missing or the two are equal.
    """
    t0, t1 = num(before, "ncu_time_us"), num(after, "ncu_time_us")
    if not (ok(t0) and ok(t1) and t0 > 0 and t1 > 0) or t0 == t1:
        return dict.fromkeys(terms, math.nan)
    rest = math.log(t1 / t0) - sum(terms.values())
    parts = ordered_parts({**terms, REST: rest}, t0, t1)
    return {k: parts[k] / (t1 - t0) for k in terms}


def ncu_part(
    before: Mapping[str, Any], after: Mapping[str, Any], share: float
) -> dict[str, Any]:
    """A cause's part of ncu's change (``share`` of it).

    :func:`account` puts it against the measured change afterwards.
    """
    dn = num(after, "ncu_time_us") - num(before, "ncu_time_us")
    return part_msg(share * dn if ok(share) else 0.0, dn)


def account(
    before: Mapping[str, Any], after: Mapping[str, Any], ranked: list[Finding]
) -> list[Finding]:
    """The ranked causes with shares of the measured change, and the two residuals.

    A step without a ranking (:data:`UNRANKED`: no measurable change, or one ncu's
    launches do not show) is its one record: factors of a change that is noise, or
    that the counters did not see, are no account of it.
    """
    if not ranked or ranked[0].rule in UNRANKED:
        return ranked[:1]
    dn, de = changes(before, after)
    if not (ok(dn) and ok(de)) or dn == 0 or de == 0:
        return ranked
    out = []
    listed = 0.0
    for f in ranked:
        us = f.share * dn if ok(f.share) else 0.0
        listed += us
        out.append(_with_part(f, us, de))
    other, timing = dn - listed, de - dn
    out.append(
        Finding(
            OTHER,
            params={"part": part_msg(other, de)},
            metric="gpu__time_duration.sum change less the listed factors' parts",
            share=other / de,
        )
    )
    out.append(
        Finding(
            TIMING,
            params={"part": part_msg(timing, de), "dn": dn, "de": de},
            metric="time_median_us - gpu__time_duration.sum",
            before=dn,
            after=de,
            share=timing / de,
        )
    )
    return out


def _with_part(f: Finding, us: float, de: float) -> Finding:
    """``f`` with its part of the measured change: share and the sentence's clause."""
    part = part_msg(us, de)
    params = dict(f.params)
    if "finding" in params and isinstance(params["finding"], Mapping):
        inner = {k: v for k, v in params["finding"].items() if k != "alone"}
        params["finding"] = {**inner, "part": part}
    else:
        params = {k: v for k, v in params.items() if k != "alone"}
        params["part"] = part
    return replace(f, params=params, share=us / de)


def parts_us(records: list[Mapping[str, Any]], de: float) -> dict[str, float]:
    """Each record's part of a step's measured change ``de`` (us), by rule."""
    out: dict[str, float] = {}
    for r in records:
        share = num(r, col.SHARE_OF_CHANGE)
        if ok(share) and not math.isnan(de):
            out[str(r[col.RULE])] = out.get(str(r[col.RULE]), 0.0) + share * de
    return out


def idle_shares(
    before: Mapping[str, Any], after: Mapping[str, Any], parts: list[Finding]
) -> list[Finding]:
    """One record naming the parts above their cause's own time in its launch.

    A launch's causes (:func:`nsightflow.diagnosis.causes.causes`, the baseline's in
    appendix A.4) are its stall cycles' share of its busy time, idle SMs a line of
    their own; the split (:func:`~nsightflow.diagnosis.step_split.step_terms`) takes
    idle SMs as a share, so a saving also removes the idle time that waited on it:
    hotatomic ``v1 -> v2``'s atomics save 216 us where ``v1``'s stalls on them are
    202 us, 15 us more with their share of ``v1``'s idle time. ``parts``: the step's
    records after :func:`account` (shares of the measured change). Empty where no
    part exceeds its cause's time by more than the rounding (0.05 us).
    """
    from nsightflow.diagnosis.causes import causes

    de = changes(before, after)[1]
    items: list[dict[str, Any]] = []
    for f in parts:
        us = f.share * de if ok(f.share) and ok(de) else 0.0
        side = before if us < 0 else after
        # a cause that is the idle time itself (too few blocks, a tail) has no share
        # of it: its part is the split's idle term (left out here)
        own = {
            c.mechanism: c.time_us for c in causes(side) if c.reasons != ("idle",)
        }.get(f.rule)
        split = time_split(side)
        if own is None or split is None or not abs(us) > own + 0.05:
            continue
        active = num(side, "ncu_time_us") - split["idle"]
        idle = own * split["idle"] / active if active > 0 else 0.0
        items.append(
            msg(
                "part_idle_item",
                label=msg(f"mech_{f.rule}"),
                us=us_str(us),
                dir=msg("dir_saved" if us < 0 else "dir_added"),
                own=us_str(own),
                variant=str(side.get(col.VARIANT, "")),
                idle=us_str(idle),
            )
        )
    if not items:
        return []
    said = items[0]
    for item in items[1:]:  # "; " between items that hold commas of their own
        said = msg("part_idle_and", head=said, tail=item)
    return [Finding("part_idle", params=msg("part_idle", items=said))]
