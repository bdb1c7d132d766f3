"""Findings as data: the record every diagnosis rule returns, and how it becomes text.

A rule returns :class:`Finding` records (or nothing when its precondition does not hold);
:mod:`nsightflow.diagnosis.build` places them (family, variant, size, section,
role) and writes ``findings.csv`` (:data:`nsightflow.contracts.FINDINGS`):

- ``section``: ``headline``, ``sweep``, ``baseline``, ``plan``, ``step``, ``stand``,
  ``conclusion`` or ``advice``; ``step_of`` the variant a step starts from (else empty).
- ``rule``: stable snake_case id, also the catalogue key of its sentence; ``role``
  ``primary`` (one per baseline, step and stand at each size), ``secondary`` (ranked
  rivals of the primary) or ``info``; ``rank`` orders the records of one group.
- ``metric``, ``value``, ``threshold``: the ncu metric (or derived quantity) the rule
  read, its value and the threshold of its precondition; ``before`` / ``after`` for
  changes; ``share_of_change``: the part of a step's time change (or of a launch's
  time) the finding accounts for; ``evidence``: other metrics it cites.
- ``line``, ``line_share``: the CUDA source line a primary finding cites and its share
  of the launch's warp-state samples (empty where it cites none; see
  :mod:`nsightflow.diagnosis.lines`).
- ``message``: the sentence in English; ``params``: its fields as JSON, from which
  :func:`render` writes it in any language of the catalogue.
- ``expected_gain``, ``achieved_gain``: in section ``advice``, a suggestion's bounded
  gain and, on a step's score (rule ``advice_score``), the gain the matching
  suggestion expected against the speedup the step achieved
  (:mod:`nsightflow.diagnosis.suggest`).

A field whose value is ``{"@": key, ...}`` is itself a message (rendered first), so a
record holds no language-bound text.
"""

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from nsightflow.contracts import FINDINGS
from nsightflow.contracts import columns as col
from nsightflow.i18n import T, language

SECTIONS = (
    "headline",
    "sweep",
    "baseline",
    "plan",
    "step",
    "stand",
    "conclusion",
    "advice",
)
ROLES = ("primary", "secondary", "info")
NAN = math.nan


def msg(key: str, /, **fields: Any) -> dict[str, Any]:
    """A message as a field of another: rendered with its own template first."""
    return {"@": key, **fields}


@dataclass(frozen=True)
class Finding:
    """What one rule found: its sentence's key and fields, and the numbers behind it."""

    rule: str
    params: Mapping[str, Any] = field(default_factory=dict)
    metric: str = ""
    value: float = NAN
    threshold: float = NAN
    before: float = NAN
    after: float = NAN
    share: float = NAN
    evidence: str = ""
    line: int = 0  # the source line it cites (0: none)
    line_share: float = NAN
    expected_gain: float = NAN  # a suggestion's bounded gain (section advice)
    achieved_gain: float = NAN  # what the next step achieved where it matched


def moved(
    rule: str,
    metric: str,
    before: float,
    after: float,
    threshold: float = NAN,
    /,
    **params: Any,
) -> Finding:
    """A finding about a metric that moved from ``before`` to ``after``.

    Its sentence gets ``before`` and ``after`` (and ``params``, where the message shows
    them scaled or with more fields); the record keeps the raw values.
    """
    return Finding(
        rule,
        params={col.BEFORE: before, col.AFTER: after, **params},
        metric=metric,
        before=before,
        after=after,
        threshold=threshold,
    )


@dataclass(frozen=True)
class Where:
    """Where a group of findings belongs in the report."""

    family: str
    variant: str
    size: int
    section: str
    step_of: str = ""
    regime: str = ""


def render(rule: str, params: Mapping[str, Any]) -> str:
    """The sentence of ``rule`` in the current language, nested messages first.

    ``params`` with an ``@`` key name their template themselves (several rules share
    one sentence shape); otherwise the rule's id is the catalogue key.
    """
    if "@" in params:
        return str(_field(params))
    return T(rule, **{k: _field(v) for k, v in params.items()})


def _field(value: Any) -> Any:
    if isinstance(value, Mapping) and "@" in value:
        return render(value["@"], {k: v for k, v in value.items() if k != "@"})
    if isinstance(value, list):
        return ", ".join(str(_field(v)) for v in value)
    return value


def place(
    where: Where, findings: list[Finding], primary: bool = False
) -> list[dict[str, Any]]:
    """Rows of ``findings.csv`` for one group, in order.

    Args:
        where: The group's place in the report.
        findings: Ranked findings (the first is the primary one if ``primary``).
        primary: Whether the first finding is the group's primary finding and the
            rest its secondary rivals; else every finding is ``info``.
    """
    rows = []
    for rank, f in enumerate(findings, start=1):
        role = ("primary" if rank == 1 else "secondary") if primary else "info"
        rows.append(row(where, f, role, rank))
    return rows


def row(where: Where, f: Finding, role: str, rank: int) -> dict[str, Any]:
    """One row of ``findings.csv``."""
    with language("en"):
        message = render(f.rule, f.params)
    return {
        col.FAMILY: where.family,
        col.VARIANT: where.variant,
        col.SIZE: where.size,
        col.SECTION: where.section,
        col.STEP_OF: where.step_of,
        col.REGIME: where.regime,
        col.RULE: f.rule,
        col.ROLE: role,
        col.RANK: rank,
        col.METRIC: f.metric,
        col.VALUE: f.value,
        col.THRESHOLD: f.threshold,
        col.BEFORE: f.before,
        col.AFTER: f.after,
        col.SHARE_OF_CHANGE: f.share,
        col.EVIDENCE: f.evidence,
        col.LINE: f.line if f.line > 0 else NAN,
        col.LINE_SHARE: f.line_share,
        col.MESSAGE: message,
        col.PARAMS: json.dumps(_plain(f.params), ensure_ascii=False, sort_keys=True),
        col.EXPECTED_GAIN: f.expected_gain,
        col.ACHIEVED_GAIN: f.achieved_gain,
    }


def _plain(value: Any) -> Any:
    """JSON-ready fields: numpy numbers as Python ones."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if hasattr(value, "item"):
        return value.item()
    return value


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """``findings.csv`` as a frame (its declared columns, possibly no rows)."""
    return FINDINGS.frame(rows)


def render_row(record: Mapping[str, Any]) -> str:
    """A stored finding's sentence in the current language (from its ``params``)."""
    return render(str(record[col.RULE]), json.loads(str(record[col.PARAMS])))
