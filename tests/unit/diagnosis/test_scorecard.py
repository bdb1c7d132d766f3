"""The advice scorecard: hit rate and predicted / achieved from advice_score rows, and
the published page and the record the reports read agree with each other."""

import importlib.util
import json
import re
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "scripts" / "advice_scorecard.py"
DOC = ROOT / "docs" / "measurements" / "advice-scorecard.md"
RECORD = ROOT / "src" / "nsightflow" / "diagnosis" / "advice_record.json"


@pytest.fixture(scope="module")
def card():
    spec = importlib.util.spec_from_file_location("advice_scorecard", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _score(step, size, hit, kind, suggested, predicted, achieved):
    params = {"hit": hit, "kind": kind, "suggested": suggested}
    return {
        "family": "f",
        "variant": step,
        "step_of": "v0",
        "size": size,
        "rule": "advice_score",
        "metric": "bank_conflicts",
        "params": json.dumps(params),
        "expected_gain": predicted,
        "achieved_gain": achieved,
    }


def test_hits_ratios_and_kinds_from_score_rows(card, tmp_path):
    rows = [
        _score("v1", 1, True, "bank_conflicts", ["bank_conflicts"], 4.6, 5.0),
        _score("v1", 2, True, "bank_conflicts", ["bank_conflicts"], 5.2, 4.0),
        _score("v2", 1, False, "", ["grid_too_small"], float("nan"), 1.5),
        _score("v3", 1, False, "", ["grid_too_small"], float("nan"), 1.01),  # no gain
    ]
    folder = tmp_path / "analysis" / "f"
    folder.mkdir(parents=True)
    pd.DataFrame(rows).to_csv(folder / "findings.csv", index=False)
    frame = card.scores(tmp_path)
    total = card.summary(frame)
    # three steps paid (achieved > 1), two of them hits
    assert (total["paid"], total["hits"]) == (3, 2)
    # predicted / achieved of the hits: 0.92 and 1.3, median 1.11
    assert total["median_ratio"] == pytest.approx((4.6 / 5.0 + 5.2 / 4.0) / 2)
    kinds = card.kinds(frame)
    assert (
        kinds["bank_conflicts"]["scored"] == 2 and kinds["bank_conflicts"]["hits"] == 2
    )
    assert kinds["grid_too_small"] == {"scored": 2, "hits": 0, "median_ratio": None}


def test_the_published_page_and_the_record_agree():
    record = json.loads(RECORD.read_text())["kinds"]
    page = DOC.read_text()
    listed = dict(
        (m.group(1), (int(m.group(2)), int(m.group(3))))
        for m in re.finditer(r"^\| `(\w+)` \| (\d+) \| (\d+) \|", page, re.M)
    )
    assert listed == {k: (v["scored"], v["hits"]) for k, v in record.items()}
