"""A variant's source is a regular file of its family's folder: no link, no escape."""

import shutil
from pathlib import Path

import pytest

from nsightflow.errors import ManifestError
from nsightflow.family.registry import load_family

ROOT = Path(__file__).resolve().parents[3]
V0 = "v0_one_per_thread"


@pytest.fixture
def family(tmp_path):
    folder = tmp_path / "kernels" / "vecadd"
    shutil.copytree(ROOT / "kernels" / "vecadd", folder)
    return folder


def _source(folder: Path) -> Path:
    return load_family(folder).variants[V0].source


def _refused(folder: Path) -> str:
    with pytest.raises(ManifestError) as info:
        load_family(folder)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"{folder / 'family.yaml'}: field variants.{V0}.source: ")
    return message


def test_a_source_that_links_to_a_file_elsewhere_is_refused(family, tmp_path):
    source = _source(family)
    secret = tmp_path / "secret.cu"
    shutil.move(source, secret)  # the same text: only the link is wrong
    source.symlink_to(secret)
    assert "is a symbolic link (to " in _refused(family)


def test_a_source_that_links_inside_the_family_folder_is_refused_too(family):
    source = _source(family)
    copy = family / "copy.cu"
    shutil.move(source, copy)
    source.symlink_to(copy.name)
    assert "is a symbolic link" in _refused(family)


def test_a_source_that_is_a_folder_or_missing_is_named(family):
    source = _source(family)
    source.unlink()
    assert "does not exist; add the file or set 'source'" in _refused(family)
    source.mkdir()
    assert "is not a regular file" in _refused(family)


def test_a_linked_family_folder_is_accepted(family, tmp_path):
    """The family folder itself may be a link (kernels kept on another disk)."""
    alias = tmp_path / "elsewhere" / "vecadd"
    alias.parent.mkdir()
    alias.symlink_to(family)
    assert _source(alias).name == f"{V0}.cu"
