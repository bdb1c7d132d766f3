"""tuned.yaml against the bundled H200 recording: the entries are what ran there."""

import json
from pathlib import Path

import pytest

from nsightflow.family import tuned
from nsightflow.family.registry import load_family

ROOT = Path(__file__).parents[3]
KERNELS = ROOT / "kernels"
RECORDING = ROOT / "examples" / "h200"


def _gpu() -> str:
    return str(json.loads((RECORDING / "recording.json").read_text())["gpu"])


@pytest.mark.parametrize("name", ["sgemm", "jacobi2d"])
def test_each_tuned_entry_is_the_configuration_the_recording_ran(name: str) -> None:
    """The compile record of the recording names the configuration each variant ran
    at; an entry of tuned.yaml for that GPU that names another (SGEMM v4 at BK=8,
    TM=8 where BK=16, TM=4 ran; Jacobi-2D v3 at 32x8 blocks, 8 rows where 128x2
    blocks, 4 rows ran) says a run starts from a point the recording never timed."""
    family = load_family(KERNELS / name)
    entries = [
        e
        for e in tuned.load(family.folder, family.variants)
        if tuned.same_gpu(e.gpu, _gpu())
    ]
    assert entries
    for entry in entries:
        record = RECORDING / "build" / name / f"{entry.variant}.resources.json"
        ran = json.loads(record.read_text())["config"]["params"]
        assert entry.params == ran, (name, entry.variant, entry.params, ran)


@pytest.mark.parametrize("name", ["sgemm", "jacobi2d"])
def test_each_entry_names_a_bundled_sweep_whose_best_it_is(name: str) -> None:
    """The provenance names a file that exists, and that file's best is the entry."""
    family = load_family(KERNELS / name)
    for entry in tuned.load(family.folder, family.variants):
        where = entry.provenance["sweep"].split(" ", 1)[0]
        path = ROOT / where
        assert path.is_file(), (entry.variant, where)
        record = json.loads(path.read_text())
        assert record["variant"] == entry.variant
        assert record["best"]["params"] == entry.params, (entry.variant, where)
        # what the text says of the file is the file's own space
        assert f"({record['space']} space" in entry.provenance["sweep"]
