"""Timeline recordings: replayed like the other stages, recorded with provenance."""

import json

import pandas as pd

from nsightflow.contracts import TIMELINE
from nsightflow.machine.recording import record
from nsightflow.machine.replay import replay_file


def test_a_recorded_table_is_replayed_as_it_is(recording, tmp_path):
    table = recording / "timeline/jacobi2d/v0_naive.csv"
    out = tmp_path / "results/timeline/jacobi2d/v0_naive.csv"
    replay_file(table, out, ("jacobi2d", "v0_naive"))
    assert out.read_bytes() == table.read_bytes()
    data = tmp_path / "v0_naive.json"
    replay_file(recording / "timeline/jacobi2d/v0_naive.json", data, None)
    stamped = json.loads(data.read_text())
    assert stamped["replayed_from"].endswith("timeline/jacobi2d/v0_naive.json")
    assert stamped["backend"] == "cupti"


def test_a_missing_timeline_is_not_recorded_not_a_failure(tmp_path):
    ident = ("jacobi2d", "v9_new")
    replay_file(
        tmp_path / "rec/timeline/jacobi2d/v9_new.json", tmp_path / "a.json", ident
    )
    replay_file(
        tmp_path / "rec/timeline/jacobi2d/v9_new.csv", tmp_path / "a.csv", ident
    )
    assert json.loads((tmp_path / "a.json").read_text())["status"] == "not_recorded"
    table = pd.read_csv(tmp_path / "a.csv")
    assert list(table.columns) == list(TIMELINE.columns) and table.empty


def test_record_keeps_the_timeline_and_says_how_it_was_made(recording, tmp_path):
    results = tmp_path / "results"
    for path in recording.glob("timeline/jacobi2d/v0_naive.*"):
        target = results / "timeline/jacobi2d" / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(path.read_bytes())
    info = record(results, tmp_path / "rec", "snakemake --cores all")
    assert (tmp_path / "rec/timeline/jacobi2d/v0_naive.csv").is_file()
    traced = json.loads((recording / "timeline/jacobi2d/v0_naive.json").read_text())
    assert info["timeline"]["backend"] == "cupti"
    assert info["timeline"]["date"] == traced["provenance"]["date"]
    assert info["timeline"]["gpu"] == traced["provenance"]["gpu"]
    written = json.loads((tmp_path / "rec/recording.json").read_text())
    assert written["timeline"] == info["timeline"]
