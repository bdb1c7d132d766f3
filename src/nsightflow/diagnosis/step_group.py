"""The records of one step at one profiled size: ranked causes, then the facts (pure).

:func:`step_records` ranks the step's factors (:mod:`nsightflow.diagnosis.steps`),
checks the primary against what else the step shows
(:mod:`nsightflow.diagnosis.revise`), cites its line where it is larger (before it
fell, after it rose), gives each cause its part of the measured change with the two
residuals (:mod:`nsightflow.diagnosis.account`), and lists what was expected against what was observed and
the metrics that moved. Every verdict in it is the event timing's
(:func:`nsightflow.diagnosis.verdict.outcome`).
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from nsightflow.contracts import columns as col
from nsightflow.diagnosis import launch_state, moves, patterns
from nsightflow.diagnosis.account import UNRANKED, account, idle_shares
from nsightflow.diagnosis.claims import unsupported_claim
from nsightflow.diagnosis.expected import expectation
from nsightflow.diagnosis.lines import cite
from nsightflow.diagnosis.per_launch import by_launch, main_launch
from nsightflow.diagnosis.pipes import pipe_moves
from nsightflow.diagnosis.record import Finding
from nsightflow.diagnosis.revise import revise
from nsightflow.diagnosis.steps import step_causes
from nsightflow.diagnosis.variant_facts import bounds_registers
from nsightflow.diagnosis.verdict import outcome


@dataclass(frozen=True)
class StepData:
    """What a step's records read beside its two launches."""

    hotspots: pd.DataFrame | None
    rules: pd.DataFrame
    launches: Mapping[str, Any]  # context.json's per-launch table
    kernels: tuple[str, str]  # the main kernel of each side
    params: tuple[Mapping[str, Any], Mapping[str, Any]] = ({}, {})  # measured configs


def step_records(
    a: dict[str, Any], b: dict[str, Any], variant: Mapping[str, Any], data: StepData
) -> tuple[list[Finding], list[Finding]]:
    """The ranked causes (primary first; empty if unprofiled) and the info records."""
    ranked, total = step_causes(a, b, outcome(a, b))
    if not ranked:
        return [], []
    if ranked[0].rule not in UNRANKED:  # a multi-kernel step: launch by launch first
        ranked = by_launch(a, b, data.launches) or ranked
    ranked = revise(a, b, ranked, total, data.launches, data.kernels)
    primary = ranked[0]
    side = b if primary.after > primary.before else a
    if primary.rule != "launch_changed":  # the hot lines are the main kernel's
        ranked[0] = cite(primary, data.hotspots, side)
    idea, library = str(variant.get(col.IDEA, "")), bool(variant.get("library"))
    info = [expectation(idea, a, b, ranked, total, library)]
    info += unsupported_claim(str(variant.get(col.IDEA, "")), a, b)
    ranked = account(a, b, ranked)
    info += idle_shares(a, b, ranked)  # parts above their cause's time in its launch
    idea = str(variant.get(col.IDEA, ""))
    info += params_changed(*data.params, idea=idea)
    info += params_text(idea, data.params[1])
    info += moves.regime_change(a, b)
    info += pipe_moves(a, b, data.hotspots)
    info += moves.stall_moves(a, b)
    info += moves.conflicts(a, b)
    main = (main_launch(data.launches, a), main_launch(data.launches, b))
    info += moves.traffic(a, b, main)
    info += patterns.divergence_findings(a, b)
    info += patterns.atomic_findings(a, b)
    info += launch_state.spills(
        variant.get("resources") or {}, bounds_registers(variant)
    )
    info += launch_state.half_empty(b)  # warps it could hold but does not
    info += moves.rule_changes(
        data.rules, a[col.VARIANT], str(b[col.VARIANT]), int(b[col.SIZE])
    )
    return ranked, info


def params_changed(
    before: Mapping[str, Any], after: Mapping[str, Any], idea: str = ""
) -> list[Finding]:
    """The compile parameters both variants have that the step also changed.

    A step measured at another configuration (the after-variant's best of its sweep,
    say) changes more than its idea: SGEMM's double-buffering step also runs 64 x 256
    tiles instead of 128 x 128. Said so, the reader does not credit the idea alone.
    Where every change is a value the idea's text names (``128x128 block tile``),
    the change is the idea; else every shared parameter that changed is listed,
    those that moved alike together: SGEMM ``v5`` runs BM, BN 64 -> 128 (its idea's
    128x128 tile) and TM 4 -> 8.
    """
    said = idea_params(idea, after)
    changed = [k for k in sorted(set(before) & set(after)) if before[k] != after[k]]
    if all(str(said.get(k, "")) == str(after[k]) for k in changed):
        return []
    by_move: dict[tuple[str, str], list[str]] = {}  # BM, BN 64 -> 128: one move
    for k in changed:
        by_move.setdefault((str(before[k]), str(after[k])), []).append(k)
    changes = [f"{', '.join(ks)} {a} -> {b}" for (a, b), ks in by_move.items()]
    return [
        Finding(
            "step_params_changed",
            params={"changes": ", ".join(changes)},
            metric=col.PARAMS,
            evidence="; ".join(changes),
        )
    ]


def idea_params(idea: str, params: Mapping[str, Any]) -> dict[str, int]:
    """The parameter values an idea's text names: ``BK=8``, ``64x64 block tile``.

    Also ``8-row strip`` or ``8 rows`` as ``ROWS``, where the variant has it.
    """
    said: dict[str, int] = {
        k: int(v) for k, v in re.findall(r"\b([A-Z][A-Z_]*)\s*=\s*(\d+)", idea)
    }
    rows = re.search(r"\b(\d+)[- ]rows?\b", idea)  # "v3's 8-row strip", "8 rows"
    if rows and "ROWS" in params:
        said.setdefault("ROWS", int(rows.group(1)))
    tile = re.search(r"\b(\d+)\s*x\s*(\d+) block tile", idea)
    if tile and {"BM", "BN"} <= set(params):
        said.setdefault("BM", int(tile.group(1)))
        said.setdefault("BN", int(tile.group(2)))
    return said


def params_text(idea: str, params: Mapping[str, Any]) -> list[Finding]:
    """The compile parameters that ran where the idea's text names other values.

    The idea is the manifest's one line, written for the default configuration; a
    sweep's tuned point may run another (``BK=16`` under a text that says ``BK=8``;
    ``64x64 block tile`` read as ``BM`` x ``BN``).
    """
    said = idea_params(idea, params)
    differ = [
        (k, said[k], params[k])
        for k in sorted(said)
        if k in params and str(params[k]) != str(said[k])
    ]
    if not differ:
        return []
    ran = ", ".join(f"{k}={v}" for k, _, v in differ)
    text = ", ".join(f"{k}={v}" for k, v, _ in differ)
    return [
        Finding(
            "step_params_text",
            params={"ran": ran, "said": text},
            metric=col.PARAMS,
            evidence=f"ran {ran}; idea {text}",
        )
    ]
