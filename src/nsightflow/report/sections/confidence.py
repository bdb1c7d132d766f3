"""How often a kind of suggestion was what the next step did, in the bundled ladders.

``scripts/advice_scorecard.py`` writes each kind's score (steps scored, hits, the
median of achieved over predicted) to ``diagnosis/advice_record.json`` from replays
of the bundled recordings; a report's suggestion quotes its kind's score beside it.
"""

import json
import math
from pathlib import Path
from typing import Any

from nsightflow.i18n import T

RECORD = Path(__file__).resolve().parents[2] / "diagnosis" / "advice_record.json"


def record() -> dict[str, Any]:
    """The bundled ladders' score per suggestion kind ({} where none is stored)."""
    if not RECORD.is_file():
        return {}
    data = json.loads(RECORD.read_text())
    return data.get("kinds", {}) if isinstance(data, dict) else {}


def confidence(kind: str, scores: dict[str, Any]) -> str:
    """The confidence sentence of a suggestion kind from the bundled ladders' score."""
    got = scores.get(kind)
    if not isinstance(got, dict) or not got.get("scored"):
        return T("confidence_none")
    if not got.get("hits"):
        return T("confidence_missed", scored=got["scored"])
    ratio = got.get("median_ratio")
    return T(
        "confidence",
        hits=got["hits"],
        scored=got["scored"],
        ratio=float(ratio) if isinstance(ratio, int | float) else math.nan,
    )
