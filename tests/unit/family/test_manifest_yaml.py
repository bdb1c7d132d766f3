"""A family.yaml is read within bounds: aliases that expand past 100,000 values (an
alias bomb), a key twice in a mapping and a file over 1 MiB are refused, each in
one line naming the file."""

import shutil
import time
from pathlib import Path

import pytest

from nsightflow.errors import ManifestError
from nsightflow.family.registry import load_family
from nsightflow.io import MAX_YAML_BYTES, read_yaml

ROOT = Path(__file__).resolve().parents[3]

BOMB = "\n".join(
    ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    + [
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]"
        for p, c in zip("abcdefgh", "bcdefghi", strict=True)
    ]
)


def _family(tmp_path: Path, text: str | None = None) -> Path:
    folder = tmp_path / "vecadd"
    shutil.copytree(ROOT / "kernels" / "vecadd", folder)
    if text is not None:
        (folder / "family.yaml").write_text(text)
    return folder


def test_an_alias_bomb_is_refused_at_once(tmp_path):
    path = tmp_path / "family.yaml"
    path.write_text(BOMB + "\n")  # 10^9 nodes if expanded
    start = time.monotonic()
    with pytest.raises(ManifestError, match="expand to over 100,000 values"):
        read_yaml(path)
    assert time.monotonic() - start < 1.0


def test_a_shared_value_is_read(tmp_path):
    path = tmp_path / "family.yaml"
    path.write_text("a: &a {x: 1}\nb: *a\nc: *a\n")
    assert read_yaml(path) == {"a": {"x": 1}, "b": {"x": 1}, "c": {"x": 1}}
    assert load_family(ROOT / "kernels" / "spmv").name == "spmv"  # shares its CSR


def test_a_variant_key_twice_is_refused_with_the_file_and_key(tmp_path):
    folder = _family(tmp_path)
    text = (folder / "family.yaml").read_text()
    block = text[text.index("  v1_grid_stride:") : text.index("  v2_coarsened:")]
    (folder / "family.yaml").write_text(text.replace(block, block + block))
    with pytest.raises(ManifestError) as error:
        load_family(folder)
    message = str(error.value)
    assert (
        "family.yaml: line" in message and "'v1_grid_stride' appears twice" in message
    )
    assert "\n" not in message


def test_a_yaml_file_over_the_limit_is_refused_before_it_is_parsed(tmp_path):
    path = tmp_path / "family.yaml"
    with path.open("wb") as fh:
        fh.truncate(MAX_YAML_BYTES + 1)
    with pytest.raises(ManifestError, match="over the 1 MiB"):
        read_yaml(path)


def test_the_bundled_manifests_read_as_before(tmp_path):
    import yaml

    for path in sorted((ROOT / "kernels").glob("*/family.yaml")):
        assert read_yaml(path) == yaml.safe_load(path.read_text()), path
