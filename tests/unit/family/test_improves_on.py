"""``improves_on`` walks back to the baseline: a variant that improves on itself, or
a loop of them, is refused at load with the file and the field."""

import shutil
from pathlib import Path

import pytest

from nsightflow.errors import ManifestError
from nsightflow.family.registry import load_family

ROOT = Path(__file__).resolve().parents[3]


def _family(tmp_path: Path, target: str) -> Path:
    """vecadd with v1_grid_stride improving on ``target`` (v0 in the manifest)."""
    folder = tmp_path / "vecadd"
    shutil.copytree(ROOT / "kernels" / "vecadd", folder)
    text = (folder / "family.yaml").read_text()
    line = "    improves_on: v0_one_per_thread\n"
    assert text.count(line) == 1
    (folder / "family.yaml").write_text(
        text.replace(line, f"    improves_on: {target}\n")
    )
    return folder


def test_a_variant_that_improves_on_itself_is_refused(tmp_path):
    with pytest.raises(ManifestError) as error:
        load_family(_family(tmp_path, "v1_grid_stride"))
    message = str(error.value)
    assert "family.yaml: field variants.v1_grid_stride.improves_on" in message
    assert "'v1_grid_stride' makes itself" in message


def test_a_loop_of_improves_on_is_refused_naming_it(tmp_path):
    with pytest.raises(ManifestError) as error:  # v1 -> v2 -> v1 (v2's own line)
        load_family(_family(tmp_path, "v2_coarsened"))
    message = str(error.value)
    assert "family.yaml: field variants." in message and ".improves_on" in message
    assert "a loop (" in message and "v1_grid_stride" in message
    assert "v2_coarsened" in message


def test_the_bundled_ladders_load():
    for path in sorted((ROOT / "kernels").glob("*/family.yaml")):
        assert load_family(path.parent).variants
