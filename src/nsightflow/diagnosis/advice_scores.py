"""The ``advice_score`` rows: each step against its previous variant's suggestions (pure).

A step is scored by its primary change where that names a suggestion
(:func:`nsightflow.diagnosis.scoring.step_scores`), else by what it changed
(:func:`nsightflow.diagnosis.scoring.step_tried`): a suggestion whose remedy the
step carried out is scored with its predicted gain beside the step's, whether the
step paid or not. Reduction ``v2_shuffle -> v3_vec4``: float4 loads (``LDG.E`` 32 ->
128 bits), predicted 1.19x, achieved 1.02x, where the primary change's label
("no change of ncu's launch time") read as "not among the suggestions".
"""

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from nsightflow.contracts import columns as col
from nsightflow.diagnosis.record import Finding, msg
from nsightflow.diagnosis.scoring import paid, step_scores, step_tried
from nsightflow.diagnosis.suggest import Suggestion
from nsightflow.diagnosis.tried import Side
from nsightflow.i18n import CATALOGUE

# step primaries that name no change of the kernel a suggestion could have asked for:
# another input, no common profiled size, a change the counters do not show
UNSCORED = frozenset({"", "input_changed", "step_time_only", "step_not_in_counters"})


def mechanism(kind: str) -> dict[str, Any]:
    """A mechanism's name as a message (the bare id where the catalogue has none)."""
    key = f"mech_{kind}"
    return msg(key) if key in CATALOGUE else msg("advice_plain", text=kind)


def limit_cell(placed: Sequence[Mapping[str, Any]], name: str, n: int) -> Any:
    """The *limits it now* cell of ``name`` at ``n`` as its stand rows give it ('')."""
    for r in placed:
        rule = str(r[col.RULE])
        if (
            r[col.SECTION] == "stand"
            and r[col.VARIANT] == name
            and r[col.SIZE] == n
            and r[col.ROLE] == "info"
            and rule.startswith("limit_")
        ):
            params = json.loads(str(r[col.PARAMS]))
            if rule == "limit_launch":
                return msg(
                    "cell_limit_launch", cell=params["cell"], kernel=params[col.KERNEL]
                )
            return msg(f"cell_{rule}", **params)
    return ""


def score(
    at_n: list[Suggestion], primary: str, before: Side, after: Side
) -> tuple[Suggestion | None, int, dict[str, Any] | None]:
    """The suggestion the step carried out: by its primary change, else by its diff."""
    match, rank = step_scores(at_n, primary, before.row, after.row)
    if match is not None:
        return match, rank, None
    if primary == "input_changed":
        return None, 0, None
    return step_tried(at_n, before, after)


def score_finding(
    name: str,
    before: str,
    n: int,
    primary: str,
    achieved: float,
    found: tuple[Suggestion | None, int, dict[str, Any] | None],
    suggested: Sequence[str] = (),
    now: Any = "",
) -> Finding:
    """A step's score: its primary change or its diff against the previous advice.

    ``found``: the suggestion, its rank and, where the step's diff (not its primary
    change) carried it out, that change; ``now``: the step's *limits it now* cell,
    said where it carried a suggestion out and did not pay.
    """
    match, rank, change = found
    predicted = match.gain if match is not None else math.nan
    key = "advice_score_miss"
    if change is not None:
        key = "advice_score_tried" + ("" if paid(achieved, primary) else "_failed")
    elif match is not None:  # a change the suggestion's remedy names, or its own kind
        key = "advice_score_hit" if match.kind == primary else "advice_score_via"
    return Finding(
        "advice_score",
        params={
            "@": key,
            "suggestion": mechanism(match.kind) if match is not None else "",
            col.VARIANT: name,
            col.BEFORE: before,
            "n": n,
            "cause": mechanism(primary),
            "predicted": predicted,
            "achieved": achieved,
            col.RANK: rank,
            "hit": match is not None,
            col.KIND: match.kind if match is not None else "",
            "suggested": sorted(set(suggested)),
            "did": change or "",
            "now": msg("advice_score_now", cell=now, variant=name) if now else "",
        },
        metric=primary,
        value=achieved,
        expected_gain=predicted,
        achieved_gain=achieved,
    )
