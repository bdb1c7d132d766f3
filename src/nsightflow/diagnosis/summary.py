"""The headline and the conclusion of one input's ladder (pure).

- *Headline* (per input): the fastest correct variant at the report's key size, the
  same sentence in the report's header and in the index. Variants whose time is
  within the timing noise of the fastest one tie with it, and the headline says so
  (:func:`nsightflow.diagnosis.verdict.ties`) instead of crowning a winner by 0.04 us.
- *Conclusion* (per input): the best variant and its share of the roof (with the
  variants it ties with), one line per step (paid, no change or slower, by the same
  verdict as the step's own section, and its primary cause), what to try next.
"""

from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.advice import TENSOR_OK, already_done, fix_key, fix_message
from nsightflow.diagnosis.causes import Cause, causes
from nsightflow.diagnosis.floors import noise
from nsightflow.diagnosis.model import num, ok
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.diagnosis.stand import rate, regime_words


def _zero(value: float) -> float:
    return value if ok(value) else 0.0


def _tie(tied: Sequence[str]) -> dict[str, Any] | str:
    """The sentence part naming the variants that tie with the best one ("" if none)."""
    if not tied:
        return ""
    return msg("tie_with", names=", ".join(f"`{v}`" for v in tied))


def headline(
    row: Mapping[str, Any], baseline: str, tied: Sequence[str] = ()
) -> Finding:
    """The fastest correct variant of an input at the key size (and those it ties)."""
    return Finding(
        "headline",
        params={
            col.VARIANT: row[col.VARIANT],
            "n": int(row[col.SIZE]),
            "time": num(row, col.TIME_MEDIAN_US),
            "speedup": _zero(num(row, col.SPEEDUP_VS_BASELINE)),
            "baseline": baseline,
            "rate": rate(row),
            col.REGIME: regime_words(row),
            "pct": _zero(num(row, col.REGIME_CEILING_PCT)),
            "ceiling": msg(f"ceiling_{row.get('regime_ceiling') or 'unknown'}"),
            col.INPUT: input_of(row),
            "tie": _tie(tied),
        },
        metric=col.TIME_MEDIAN_US,
        value=num(row, col.TIME_MEDIAN_US),
        evidence="ties: " + ", ".join(tied) if tied else "",
    )


def input_of(row: Mapping[str, Any]) -> dict[str, Any]:
    """The message naming the row's input (its ``input`` label, or the default)."""
    label = row.get(col.INPUT)
    if not isinstance(label, str) or not label:
        return msg("input_default")
    return msg("input_named", label=label)


def conclusion(
    best: Mapping[str, Any],
    steps: Sequence[tuple[Mapping[str, Any], str | dict[str, Any], str, float]],
    stand_rule: str,
    tied: Sequence[str] = (),
    compiled: Mapping[str, Any] | None = None,
    run: Sequence[Cause] | None = None,
) -> list[Finding]:
    """Best variant, one line per step and what to try next, for one input.

    Args:
        best: The fastest correct variant's row at the key size.
        steps: Per step of the input's ladder, the after-variant's row at the key
            size, its primary cause's rule id ("" when not profiled; a message
            where the configuration carries it), its verdict
            (``paid``, ``no_gain``, ``not_paid``:
            :func:`nsightflow.diagnosis.verdict.outcome`) and the noise line that
            verdict applied (%, :func:`nsightflow.diagnosis.verdict.threshold_pct`).
        stand_rule: The rule of the best variant's stand (at the floor, roof, ...).
        tied: Variants within the timing noise of the best one.
        compiled: What the compiler built for the best variant
            (:mod:`nsightflow.tools.compiler_facts`): a remedy it already has is
            not the next step.
        run: The best run's causes launch by launch where it has several
            (:func:`nsightflow.diagnosis.per_launch.run_causes`): its largest cost
            as its stand names it (scan ``v3``: a later launch of the run, not the
            combined row's too few bytes in flight).
    """
    found = [
        Finding(
            "conclusion_best",
            params={
                col.VARIANT: best[col.VARIANT],
                col.REGIME: regime_words(best),
                "pct": _zero(num(best, col.REGIME_CEILING_PCT)),
                "ceiling": msg(f"ceiling_{best.get('regime_ceiling') or 'unknown'}"),
                "speedup": _zero(num(best, col.SPEEDUP_VS_BASELINE)),
                "rate": rate(best),
                "tie": _tie(tied),
            },
            metric=col.REGIME_CEILING_PCT,
            value=num(best, col.REGIME_CEILING_PCT),
        )
    ]
    found += [f for f in (_step_line(*step) for step in steps) if f is not None]
    found.append(_next(best, stand_rule, compiled or {}, run))
    return found


def _step_line(
    row: Mapping[str, Any], why: str | dict[str, Any], verdict: str, line: float
) -> Finding | None:
    """The conclusion's line of one step: its speedup, verdict and primary cause.

    A step without a change says the line it is within (reduction ``v3``: 1.02x,
    2.3% against its 5.8% of timing noise), not "within 2%" it is not within.
    """
    speedup = num(row, col.SPEEDUP_VS_PREVIOUS)
    if not ok(speedup) or not verdict:
        return None
    return Finding(
        "conclusion_step",
        params={
            col.VARIANT: row[col.VARIANT],
            col.BEFORE: row.get(col.STEP_OF, ""),
            "speedup": speedup,
            col.VERDICT: verdict_message(verdict, speedup, line),
            # a message where the sweep's configuration carries the step
            "why": why
            if isinstance(why, dict)
            else (msg(f"mech_{why}") if why else msg("mech_unknown")),
        },
        metric=col.SPEEDUP_VS_PREVIOUS,
        value=speedup,
        threshold=1.0,
    )


NARROW = 2.0  # a step that paid by less than this many times its line paid narrowly


def verdict_message(verdict: str, speedup: float, line: float) -> dict[str, Any]:
    """A step's verdict with the line it was judged against, where it is close.

    One noise model for every step: reduction ``v3`` (2.3%) is within its 5.8% line
    and says so; ``v1`` (2.2%) is past its 2.0% line by 0.2 points, and says that
    too, so its credited cause is read as the hypothesis it is.
    """
    if verdict == "no_gain":
        return msg("no_gain_within", line=line)
    pct = 100.0 * (speedup - 1.0)
    if verdict == "paid" and ok(line) and line > 0 and pct < NARROW * line:
        return msg("paid_narrowly", pct=pct, line=line)
    return msg(verdict)


def _next(
    best: Mapping[str, Any],
    stand_rule: str,
    compiled: Mapping[str, Any],
    run: Sequence[Cause] | None = None,
) -> Finding:
    stops = ("at_dram_floor", "at_dram_floor_timing", "dram_saturated_excess")
    if stand_rule in (*stops, "at_compute_roof"):
        return Finding(f"next_{stand_rule}", params={col.VARIANT: best[col.VARIANT]})
    if stand_rule == "at_vendor_rate":
        return _vendor_next(best, compiled)
    top = list(run) if run is not None else []
    if not top:
        top = causes(best) if best.get("profiled") else []
    if not top:
        return Finding("next_profile", params={col.VARIANT: best[col.VARIANT]})
    if already_done(top[0].mechanism, best, compiled):
        return Finding(
            "next_already_done",
            params={
                col.VARIANT: best[col.VARIANT],
                "label": msg(f"mech_{top[0].mechanism}"),
            },
            metric=top[0].mechanism,
            share=top[0].share,
        )
    return Finding(
        "next_remedy",
        params={
            col.VARIANT: best[col.VARIANT],
            "label": msg(f"mech_{top[0].mechanism}"),
            "fix": fix_message(top[0].mechanism, best, compiled)
            if top[0].mechanism == "global_atomics"  # once per block: not "privatize"
            else msg(fix_key(best, top[0].mechanism)),
        },
        metric=top[0].mechanism,
        share=top[0].share,
    )


def _vendor_next(best: Mapping[str, Any], compiled: Mapping[str, Any]) -> Finding:
    """What is left at 90% or more of the vendor library's rate.

    It matches the library only within its timing's noise (the verdicts' own line,
    :func:`~nsightflow.diagnosis.floors.noise`): SGEMM v7 at 94% of cuBLAS, outside
    its 2% line, "matched the vendor library"; and tensor cores only where the
    family's tolerance allows TF32.
    """
    pct = num(best, col.REGIME_CEILING_PCT)
    line = noise(best)
    tie = ok(pct) and pct > 0 and 100.0 / pct <= line
    return Finding(
        "next_at_vendor_rate_tie" if tie else "next_at_vendor_rate",
        params={
            col.VARIANT: best[col.VARIANT],
            "fp32": _zero(num(best, col.PCT_OF_FP32_PEAK)),
            "pct": _zero(pct),
            "noise": 100.0 * (line - 1.0),
            "ceiling": msg(f"ceiling_{best.get(col.REGIME_CEILING)}"),
            "tensor": msg("next_tensor") if compiled.get(TENSOR_OK, True) else "",
        },
    )
