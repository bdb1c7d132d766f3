"""compare names the configuration each side ran where a variant's differ.

Run B is a copy of the bundled H200 recording's SGEMM timings and build records in
which v7's sweep picked another point (its time record's ``config`` block), as a run
of this pipeline on another day would.
"""

import json
import shutil
from pathlib import Path

import pandas as pd

from nsightflow.cli import main

RECORDED_V7 = "BM64_BN256_BK8_TM16_TN8_WN8_MIN_BLOCKS2"  # the recording's build record
OTHER_V7 = {"BM": 128, "BN": 128, "BK": 8, "TM": 8, "TN": 8, "WN": 4, "MIN_BLOCKS": 1}


def _copy(recording: Path, dst: Path, stages=("time", "build")) -> Path:
    for stage in stages:
        shutil.copytree(recording / stage / "sgemm", dst / stage / "sgemm")
    for name in ("recording.json", "ceilings.json"):
        shutil.copy2(recording / name, dst / name)
    return dst


def _other_point(run: Path) -> None:
    path = run / "time/sgemm/v7_double_buffer.json"
    record = json.loads(path.read_text())
    record["config"] = {
        "id": "_".join(f"{k}{v}" for k, v in OTHER_V7.items()),
        "params": OTHER_V7,
        "origin": "sweep",
        "gpu": "NVIDIA H200",
        "detail": "this run's sweep",
    }
    path.write_text(json.dumps(record))


def _compare(a: Path, b: Path, out: Path) -> tuple[str, pd.DataFrame]:
    rc = main(["compare", str(a), str(b), "-o", str(out), "--no-counters"])
    assert rc == 0
    return (out / "compare.md").read_text(), pd.read_csv(
        out / "compare.csv", keep_default_na=False
    )


def test_another_sweep_point_names_both_configurations_and_marks_its_pairs(
    recording, tmp_path
):
    b = _copy(recording, tmp_path / "b")
    _other_point(b)
    page, pairs = _compare(recording, b, tmp_path / "cmp")
    first_screen = page.split("\n## ")[0] + page.split("\n## ")[1]
    assert (
        f"A ran `{RECORDED_V7}`, B ran `BM128_BN128_BK8_TM8_TN8_WN4_MIN_BLOCKS1`"
        in (first_screen)
    )
    caveats = pairs.set_index("variant")["caveats"]
    assert all("config" in c for c in caveats.loc[["v7_double_buffer"]])
    others = caveats.drop(index="v7_double_buffer")
    assert not any("config" in c for c in others), others[others.str.contains("config")]


def test_the_same_configurations_raise_no_caveat(recording, tmp_path):
    b = _copy(recording, tmp_path / "b")
    page, pairs = _compare(recording, b, tmp_path / "cmp")
    assert "Different configurations" not in page
    assert not pairs["caveats"].str.contains("config").any()


def test_a_side_without_build_records_says_its_configuration_is_unknown(
    recording, tmp_path
):
    # B as a run recorded before time records carried their config block, and
    # without the build records that name the parameters compiled
    b = _copy(recording, tmp_path / "b", stages=("time",))
    stripped = 0
    for path in sorted((b / "time/sgemm").glob("*.json")):
        record = json.loads(path.read_text())
        stripped += record.pop("config", None) is not None
        path.write_text(json.dumps(record))
    assert stripped  # the recording's time records name their configuration
    page, pairs = _compare(recording, b, tmp_path / "cmp")
    assert "is not recorded on one side" in page
    assert not pairs["caveats"].str.contains("config").any()


def test_a_side_without_build_records_knows_its_configuration_from_its_time_records(
    recording, tmp_path
):
    # the recording's time records carry the config block the run timed
    b = _copy(recording, tmp_path / "b", stages=("time",))
    page, pairs = _compare(recording, b, tmp_path / "cmp")
    assert "is not recorded on one side" not in page
    assert "Different configurations" not in page
    assert not pairs["caveats"].str.contains("config").any()
