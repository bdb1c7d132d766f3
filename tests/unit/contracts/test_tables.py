"""The exchanged tables: each declared once, written and read through its declaration."""

import numpy as np
import pandas as pd
import pytest

from nsightflow.analysis.hotspots import COLUMNS as HOTSPOT_WRITER_COLUMNS
from nsightflow.analysis.sweep import sweep_tables
from nsightflow.contracts import (
    FINDINGS,
    HOTSPOTS,
    METRICS,
    NA,
    RULES,
    SUMMARY,
    SWEEP,
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


def test_read_gives_each_declared_dtype(tmp_path):
    """Text stays text as written (a variant named 007), an int-valued float column
    reads as float, and a flag column written by hand reads as bool."""
    path = tmp_path / "metrics.csv"
    path.write_text("family,variant,metric,value\nf,007,m,3\nf,010,m,4\n")
    assert list(METRICS.read(path)["variant"]) == ["007", "010"]
    path = tmp_path / "sweep.csv"
    path.write_text("status,is_best,geomean_us\nok,True,3\nok,False,\n")
    back = SWEEP.read(path)
    assert pd.api.types.is_float_dtype(back["geomean_us"])
    assert back["is_best"].dtype == bool and list(back["is_best"]) == [True, False]


def test_an_empty_number_cell_of_a_table_that_keeps_blank_text_is_missing(tmp_path):
    path = tmp_path / HOTSPOTS.name
    path.write_text("source,share,samples\n,,5\n")
    back = HOTSPOTS.read(path)
    assert back.loc[0, "source"] == "" and np.isnan(back.loc[0, "share"])


@pytest.mark.parametrize(
    ("cells", "problem"),
    [("x,1", "not a number"), ("1.5,1", "not a whole number"), (",1", "whole")],
)
def test_read_refuses_a_value_its_column_cannot_hold(tmp_path, cells, problem):
    path = tmp_path / "timeline.csv"
    path.write_text(f"kind,start_ns,end_ns\nkernel,{cells}\n")
    with pytest.raises(ValueError, match=f"timeline.csv: column 'start_ns'.*{problem}"):
        TIMELINE.read(path)


def test_read_takes_the_bytes_of_a_file(tmp_path):
    import io

    back = RULES.read(io.BytesIO(b"rule,speedup_pct\nr,2\n"))
    assert back["speedup_pct"].dtype == float and back["rule"].item() == "r"
