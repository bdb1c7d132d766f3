"""A multi-kernel step split launch by launch before its factors are ranked (pure).

A multi-kernel variant is profiled as one run of several launches (reduction: the
main kernel, then ``reduce_finish`` summing the block partials). Its analysis row
combines them (counts added, ratios weighted), so the factors of a step between two
such runs mix the launches: reduction's ``v1_sequential -> v2_shuffle`` reads as
*instruction count* over both kernels, while 11.4 of ncu's 31.3 us saved are the
second pass alone (``reduce_finish`` 14.1 -> 2.7 us, 32768 -> 1056 partials).

Where both runs have the same launches (by position; the first is the main kernel)
and each launch its own row (``context.json``'s ``launches``, from
:func:`nsightflow.analysis.launches.with_launch_rows`), ncu's change splits exactly
into the launches' changes, ``dn = sum_k (t1_k - t0_k)``:

- the main launch's change is split into its own factors
  (:func:`nsightflow.diagnosis.steps.step_causes` on its two rows); each factor's
  share of the main launch's change ``d0`` becomes a share of ``dn``:
  ``share x d0 / dn``; its sentence says whose kernel it is;
- each later launch whose change is at least :data:`LAUNCH_LISTED` of ``dn``, and
  whose work changed (:func:`_work_moved`), is one part of its own, named after its
  kernel;

what neither lists falls to the account's *other factors*
(:func:`nsightflow.diagnosis.account.account`), so the parts still sum to ``dn``.

A baseline's causes are split the same way (:func:`run_causes`).
"""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.account import UNRANKED, ncu_part
from nsightflow.diagnosis.causes import MIN_SHARE, Cause, causes
from nsightflow.diagnosis.credit import named_lead
from nsightflow.diagnosis.memory import or_zero
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.diagnosis.steps import MIN_SHARE as LISTED_SHARE
from nsightflow.diagnosis.steps import step_causes

LAUNCH_LISTED = 0.1  # a later launch's change from this share of the step's is a part


def launch_rows(
    launches: Mapping[str, Any], row: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Each launch's own row of the run ``row`` is (empty unless every launch has one)."""
    runs = (
        launches.get(str(row.get(col.VARIANT)), {}).get(str(int(row[col.SIZE]))) or []
    )
    if not runs or not all("row" in r for r in runs):
        return []
    return [
        {**r["row"], col.KERNEL: str(r[col.KERNEL]), col.LAUNCH: int(r[col.LAUNCH])}
        for r in sorted(runs, key=lambda r: int(r[col.LAUNCH]))
    ]


def main_launch(launches: Mapping[str, Any], row: Mapping[str, Any]) -> dict[str, Any]:
    """The run's main (first) launch's own row where it has several, else the row.

    A run's row averages each counter over its launches by time, a value no launch
    ran at: reduction ``v2``'s row reads an achieved occupancy of 89%, its main
    kernel ``reduce_v2`` 96% and its one-block ``reduce_finish`` far less.
    """
    runs = launch_rows(launches, row)
    return runs[0] if len(runs) >= 2 else dict(row)


def by_launch(
    before: Mapping[str, Any], after: Mapping[str, Any], launches: Mapping[str, Any]
) -> list[Finding] | None:
    """The step's causes launch by launch (primary first), or None where not split.

    None where either run has one launch, the runs differ in their launches (a
    launch removed or added: :func:`nsightflow.diagnosis.revise.launch_change`), a
    launch lacks its row, or ncu's change is 0.
    """
    a, b = launch_rows(launches, before), launch_rows(launches, after)
    dn = num(after, "ncu_time_us") - num(before, "ncu_time_us")
    if len(a) < 2 or len(a) != len(b) or not ok(dn) or dn == 0:
        return None
    parts = _main_parts(a[0], b[0], dn)
    for x, y in zip(a[1:], b[1:], strict=True):
        dk = num(y, "ncu_time_us") - num(x, "ncu_time_us")
        if ok(dk) and abs(dk) >= LAUNCH_LISTED * abs(dn) and _work_moved(x, y):
            parts.append(_launch_part(before, after, x, y, dk / dn))
    if not parts:
        return None
    # the primary moved the time most the step's way; the rest by size
    parts = named_lead(sorted(parts, key=lambda f: -f.share), LISTED_SHARE)
    return parts[:1] + sorted(parts[1:], key=lambda f: -abs(f.share))


SAME_WORK = 0.01  # a later launch's instructions within this: the same work


def _work_moved(x: Mapping[str, Any], y: Mapping[str, Any]) -> bool:
    """Whether a later launch does other work in the two runs (instructions, grid).

    The same launch doing the same work (reduction ``v0 -> v1``: ``reduce_finish``,
    one block, 7,385 warp instructions in both, 14.0 -> 13.6 us) moved by its own
    run-to-run variation, not by the step: its change stays with the other factors.
    """
    i0, i1 = num(x, "inst_executed"), num(y, "inst_executed")
    g0, g1 = num(x, "grid_blocks"), num(y, "grid_blocks")
    if not (ok(i0) and ok(i1) and i0 > 0):
        return True  # no counts to tell: the time is all there is
    return abs(i1 / i0 - 1) >= SAME_WORK or (ok(g0) and ok(g1) and g0 != g1)


def _main_parts(a: Mapping[str, Any], b: Mapping[str, Any], dn: float) -> list[Finding]:
    """The main launch's own factors, as shares of the whole step's ``dn``."""
    d0 = num(b, "ncu_time_us") - num(a, "ncu_time_us")
    ranked, _ = step_causes(a, b)
    if not ranked or ranked[0].rule in UNRANKED or not ok(d0):
        return []
    kernel = str(b.get(col.KERNEL) or a.get(col.KERNEL) or "")
    return [_in_kernel(f, kernel, d0, dn) for f in ranked if ok(f.share)]


def _in_kernel(f: Finding, kernel: str, d0: float, dn: float) -> Finding:
    """``f`` (a factor of the main launch's ``d0``) as a part of the step's ``dn``."""
    params = dict(f.params)
    if "label" in params:
        params["label"] = msg("label_in_kernel", label=params["label"], kernel=kernel)
    if "part" in params:
        params["part"] = ncu_part(
            {"ncu_time_us": 0.0}, {"ncu_time_us": dn}, f.share * d0 / dn
        )
    return replace(f, params=params, share=f.share * d0 / dn)


def _launch_part(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    x: Mapping[str, Any],
    y: Mapping[str, Any],
    share: float,
) -> Finding:
    """A later launch's change as one part of the step: its kernel, its ncu time."""
    t0, t1 = num(x, "ncu_time_us"), num(y, "ncu_time_us")
    kernel = str(y.get(col.KERNEL) or x.get(col.KERNEL) or "")
    return Finding(
        "launch_changed",
        params=msg(
            "cause_launch_changed",
            label=msg("mech_launch_changed"),
            kernel=kernel,
            n=int(y.get(col.LAUNCH, 0)) + 1,
            t0=t0,
            t1=t1,
            blocks0=num(x, "grid_blocks") if ok(num(x, "grid_blocks")) else 0.0,
            blocks1=num(y, "grid_blocks") if ok(num(y, "grid_blocks")) else 0.0,
            inst0=num(x, "inst_executed") if ok(num(x, "inst_executed")) else 0.0,
            inst1=num(y, "inst_executed") if ok(num(y, "inst_executed")) else 0.0,
            part=ncu_part(before, after, share),
        ),
        metric="gpu__time_duration.sum of one launch",
        before=t0,
        after=t1,
        share=share,
        evidence=kernel,
    )


LATER_LAUNCH = "later_launch"  # a launch after the main kernel, as one cause


def run_causes(
    row: Mapping[str, Any], runs: Sequence[Mapping[str, Any]] = ()
) -> list[Cause]:
    """The causes of a run's time, launch by launch where it has several.

    ``runs``: each launch's own row, main kernel first (empty: one launch). The main
    kernel's causes come from its own counters, as shares of the whole run's time;
    each later launch is one cause, its time, named after its kernel. The run's
    combined row would read a one-block second pass as idle SMs of the main kernel:
    reduction's ``v0_interleaved`` spends 13.9 of its 55.3 us in ``reduce_finish``,
    1 block on 132 SMs, which the combined row shows as 22% idle SM time.
    """
    total = num(row, "ncu_time_us")
    if len(runs) < 2 or not (ok(total) and total > 0):
        return causes(row)
    main = str(runs[0].get(col.KERNEL) or "")
    found = [
        replace(c, share=c.time_us / total, evidence=_in_main(c.evidence, main))
        for c in causes(runs[0])
    ]
    for r in runs[1:]:
        us = num(r, "ncu_time_us")
        if not ok(us):
            continue
        evidence = msg(
            "ev_later_launch",
            kernel=str(r.get(col.KERNEL) or ""),
            n=int(r.get(col.LAUNCH, 0)) + 1,
            blocks=or_zero(num(r, "grid_blocks")),
            sms=or_zero(num(r, "sm_count")),
        )
        reasons = ("launch",)  # contracts: literal (a cause's reason, not the column)
        found.append(Cause(LATER_LAUNCH, us, us / total, reasons, evidence))
    ranked = sorted(found, key=lambda c: -c.time_us)
    return [c for c in ranked if c.share >= MIN_SHARE]


def _in_main(evidence: dict[str, Any], kernel: str) -> dict[str, Any]:
    """A main-kernel cause's evidence, said to be the main kernel's."""
    return msg("ev_in_main", kernel=kernel, evidence=evidence)
