"""The exchanged tables: each declared once, written and read through its declaration."""

import numpy as np
import pandas as pd
import pytest

from nsightflow.analysis.hotspots import COLUMNS as HOTSPOT_WRITER_COLUMNS
from nsightflow.analysis.sweep import sweep_tables
from nsightflow.contracts import (
    FINDINGS,
    HOTSPOTS,
    NA,
    RULES,
    SUMMARY,
    SWEEP_SUMMARY,
    TABLES,
    TIMELINE,
    Table,
)
from nsightflow.contracts.bundle import Bundle
from nsightflow.diagnosis.record import frame as findings_frame
from nsightflow.report.summary import summary_frame


@pytest.mark.parametrize("table", TABLES, ids=lambda t: t.name)
def test_a_table_names_each_column_once(table):
    assert len(set(table.columns)) == len(table.columns), table.name


def test_a_dtype_of_an_undeclared_column_is_refused():
    with pytest.raises(AssertionError, match="undeclared columns"):
        Table("t.csv", ("a",), {"b": "str"})


def test_the_writers_build_the_declared_columns():
    assert list(findings_frame([]).columns) == list(FINDINGS.columns)
    analysis = pd.DataFrame(
        {"family": ["f"], "ideal_flops": [1.0], "ideal_bytes": [2.0]}
    )
    assert list(summary_frame(analysis).columns) == list(SUMMARY.columns)
    assert HOTSPOT_WRITER_COLUMNS[: len(HOTSPOTS.columns)] == list(HOTSPOTS.columns)
    assert HOTSPOT_WRITER_COLUMNS[len(HOTSPOTS.columns)] == "samples_barrier"
    assert list(sweep_tables([], None)[1].columns) == list(SWEEP_SUMMARY.columns)


def test_findings_keep_text_that_pandas_would_read_as_missing(tmp_path):
    row = dict.fromkeys(FINDINGS.columns, "")
    row |= {"family": "f", "variant": "v0", "rule": "r", "message": "None", "value": 1}
    row |= {"evidence": "NA", "params": "{}"}
    path = tmp_path / FINDINGS.name
    FINDINGS.write(FINDINGS.frame([row]), path)
    back = FINDINGS.read(path)
    assert back.loc[0, "message"] == "None" and back.loc[0, "evidence"] == "NA"
    assert np.isnan(back.loc[0, "threshold"])  # an empty cell is still missing
    # pandas' defaults, which the figures read with before, lose the text
    assert pd.isna(pd.read_csv(path).loc[0, "message"])


def test_a_blank_source_line_of_a_hot_line_reads_as_text(tmp_path):
    path = tmp_path / HOTSPOTS.name
    path.write_text(
        ",".join(HOTSPOTS.columns) + "\n" + "f,v0,1,0,k,a.cu,3,,5" + "," * 7
    )
    assert HOTSPOTS.read(path).loc[0, "source"] == ""
    assert HOTSPOTS.na is NA.NONE


def test_a_file_without_header_reads_as_a_frame_without_columns(tmp_path):
    path = tmp_path / "rules.csv"
    RULES.write(pd.DataFrame(), path)
    assert path.stat().st_size <= 1
    assert RULES.read(path).empty and RULES.read_if_present(path) is None
    assert RULES.read_if_present(tmp_path / "absent.csv") is None


def test_an_empty_table_is_written_with_its_header(tmp_path):
    path = tmp_path / TIMELINE.name
    TIMELINE.write(TIMELINE.empty(), path)
    assert path.read_text() == ",".join(TIMELINE.columns) + "\n"


def test_the_bundle_reads_a_family_and_leaves_absent_files_none(tmp_path):
    folder = tmp_path / "vecadd"
    folder.mkdir()
    (folder / "context.json").write_text('{"family": "vecadd"}')
    FINDINGS.write(FINDINGS.empty(), folder / FINDINGS.name)
    bundle = Bundle(folder)
    assert bundle.context["family"] == "vecadd"
    assert list(bundle.findings.columns) == list(FINDINGS.columns)
    assert bundle.hotspots is None
