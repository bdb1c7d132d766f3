"""A ceiling of 0 (or below, or not a number) is one line naming the file and the
field, in replay and in the analysis, not a KeyError deep in the diagnosis."""

import json
import shutil
import subprocess
import sys

import pytest

from nsightflow.analysis.analyze import _ceilings
from nsightflow.errors import StageInputError


@pytest.mark.parametrize("value", [0, -1.0, "fast", True])
@pytest.mark.parametrize(
    "field", ["copy_gbps", "fp32_gflops", "l2_gbps", "shared_gbps"]
)
def test_a_ceiling_that_is_no_rate_is_refused_by_the_analysis(
    recording, tmp_path, field, value
):
    data = json.loads((recording / "ceilings.json").read_text())
    data[field] = value
    path = tmp_path / "ceilings.json"
    path.write_text(json.dumps(data))
    with pytest.raises(StageInputError, match=f"field {field}: .* above 0"):
        _ceilings(path)


def test_the_recorded_ceilings_pass(recording):
    assert _ceilings(recording / "ceilings.json")["copy_gbps"] > 0


def test_replay_refuses_a_recorded_ceiling_of_0(recording, tmp_path):
    source = tmp_path / "recording" / "ceilings.json"
    source.parent.mkdir()
    shutil.copy(recording / "ceilings.json", source)
    data = json.loads(source.read_text())
    data["fp32_gflops"] = 0
    source.write_text(json.dumps(data))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "nsightflow",
            "replay",
            str(source),
            str(tmp_path / "o"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "field fp32_gflops: 0" in done.stderr and len(done.stderr.splitlines()) == 1
