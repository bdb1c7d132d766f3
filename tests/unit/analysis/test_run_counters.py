"""What a results folder's reader refuses, and what it passes over as part of any run."""

import os

from nsightflow.analysis.run_counters import _table, folders
from nsightflow.contracts import METRICS
from nsightflow.untrusted import Tree


def test_snakemakes_marker_is_passed_over_and_a_link_or_file_named(tmp_path):
    family = tmp_path / "profile" / "conv2d"
    (family / "v0_naive").mkdir(parents=True)
    (family / ".snakemake_timestamp").write_text("")  # what every replay leaves
    (family / "notes.txt").write_text("x")
    (family / "conv2d.c830e02b.ncu-rep").write_bytes(b"r")  # the family's shared report
    (family / "conv2d.0123abcd.ncu-rep.xz").write_bytes(b"r")  # and a compressed one
    (family / "sgemm.c06c87e8.ncu-rep").write_bytes(b"r")  # another family's: a stray
    os.symlink(family / "v0_naive", family / "v1_linked")
    refused: list[str] = []
    assert folders(Tree(tmp_path), "profile/conv2d", refused) == ["v0_naive"]
    assert sorted(refused) == [
        f"{family / 'notes.txt'}: a file where variants' folders are; left out",
        f"{family / 'sgemm.c06c87e8.ncu-rep'}: a file where variants' folders are; "
        "left out",
        f"{family / 'v1_linked'}: a link, not followed; left out",
    ]


def test_a_header_only_metrics_table_is_no_table_not_a_bad_one(tmp_path):
    """The parse stage writes the header alone for a variant ncu did not profile."""
    metrics = tmp_path / "metrics" / "reduction"
    metrics.mkdir(parents=True)
    header = "family,variant,size,launch,kernel,metric,unit,value,rollup\n"
    (metrics / "v5_cupy_sum.csv").write_text(header)
    refused: list[str] = []
    assert (
        _table(Tree(tmp_path), ("reduction", "v5_cupy_sum"), METRICS, refused) is None
    )
    assert refused == []
