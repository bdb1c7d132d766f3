"""An addition of the ceilings alone (measured again, e.g. with a new level) is
stamped with where and when they were measured, from the ceilings' own provenance."""

import json

from nsightflow.io import write_json
from nsightflow.machine.recording import record

STAMP = {"gpu": "NVIDIA H200", "driver": "580.1", "date": "2026-12-02T04:54:57+00:00"}


def test_an_addition_of_the_ceilings_alone_names_their_gpu_driver_and_date(tmp_path):
    first, again, rec = tmp_path / "r1", tmp_path / "r2", tmp_path / "rec"
    for folder, copy in ((first, 4257.3), (again, 4215.0)):
        folder.mkdir()
        write_json(
            folder / "ceilings.json",
            {"copy_gbps": copy, "fp32_gflops": 63000.0, "provenance": STAMP},
        )
    record(first, rec, "first")
    info = record(again, rec, "again", add=True)
    added = info["additions"][-1]
    assert {k: added[k] for k in STAMP} == STAMP
    assert added["replaced"] == ["ceilings.json"]
    assert json.loads((rec / "ceilings.json").read_text())["copy_gbps"] == 4215.0
    kept = rec / added["superseded"] / "ceilings.json"
    assert json.loads(kept.read_text())["copy_gbps"] == 4257.3
