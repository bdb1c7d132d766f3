"""The family's inputs and references, made once and read back by every GPU job."""

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from nsightflow.family.reference_cache import ReferenceCache, entry_key, needed, prefill
from nsightflow.family.registry import load_family

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def faulty(tmp_path):
    """A copy of the faulty test family (its reference can be edited)."""
    shutil.copytree(ROOT / "tests/data/families/faulty", tmp_path / "faulty")
    return load_family(tmp_path / "faulty")


def _direct(family, variant, n, seed=408):
    raw = family.generator()(n, np.random.default_rng([seed, n]))
    return raw, family.reference_module().reference(raw, n)


def test_cached_inputs_and_reference_equal_a_fresh_generation(faulty, tmp_path):
    variant = faulty.variants["v0_naive"]
    first = ReferenceCache(tmp_path / "cache", faulty, 408)
    got = first.reference(variant, 1000, first.inputs(variant, 1000))
    raw, expected = _direct(faulty, variant, 1000)
    # read back by another process (a new cache object): memory-mapped, same bytes
    again = ReferenceCache(tmp_path / "cache", faulty, 408)
    inputs = again.inputs(variant, 1000)
    assert isinstance(inputs["x"], np.memmap)
    np.testing.assert_array_equal(inputs["x"], raw["x"])
    np.testing.assert_array_equal(
        again.reference(variant, 1000, inputs)["y"], expected["y"]
    )
    np.testing.assert_array_equal(got["y"], expected["y"])


def test_the_key_follows_generator_reference_args_size_and_seed(faulty):
    base = entry_key(faulty, {}, 1000, 408)
    assert base == entry_key(faulty, {}, 1000, 408)
    assert base != entry_key(faulty, {"kind": "skewed"}, 1000, 408)
    assert base != entry_key(faulty, {}, 1001, 408)
    assert base != entry_key(faulty, {}, 1000, 409)
    reference = faulty.folder / "reference.py"
    reference.write_text(reference.read_text() + "\n# an edit\n")
    assert base != entry_key(faulty, {}, 1000, 408)


def test_a_second_read_does_not_call_the_generator(faulty, tmp_path, monkeypatch):
    variant = faulty.variants["v0_naive"]
    cache = ReferenceCache(tmp_path / "cache", faulty, 408)
    cache.reference(variant, 4096, cache.inputs(variant, 4096))
    calls = []
    module = faulty.reference_module()
    monkeypatch.setattr(type(faulty), "generator", lambda self: calls.append(1))
    monkeypatch.setattr(
        type(faulty), "reference_module", lambda self: calls.append(2) or module
    )
    again = ReferenceCache(tmp_path / "cache", faulty, 408)
    again.reference(variant, 4096, again.inputs(variant, 4096))
    assert calls == []


def test_lazy_inputs_are_stored_when_first_read(tmp_path):
    folder = tmp_path / "faulty"
    shutil.copytree(ROOT / "tests/data/families/faulty", folder)
    (folder / "reference.py").write_text(
        "import numpy as np\n"
        "def generate(n, rng):\n"
        "    x = rng.random(n, dtype=np.float32)\n"
        "    return {'x': x, 'big': lambda: np.repeat(x, 3), 'm': 7}\n"
        "def reference(inputs, n):\n"
        "    return {'y': 2.0 * inputs['x'].astype(np.float64) + 1.0}\n"
    )
    family = load_family(folder)
    variant = family.variants["v0_naive"]
    cache = ReferenceCache(tmp_path / "cache", family, 1)
    inputs = cache.inputs(variant, 10)
    entry = cache.folder(variant, 10)
    assert not (entry / "inputs/big.npy").exists()  # not read yet: not made
    assert inputs["m"] == 7 and inputs.is_size("m")
    np.testing.assert_array_equal(inputs["big"], np.repeat(inputs["x"], 3))
    assert (entry / "inputs/big.npy").is_file()
    kinds = json.loads((entry / "entry.json").read_text())["inputs"]
    assert kinds == {
        "x": {"kind": "array"},
        "big": {"kind": "lazy"},
        "m": {"kind": "size", "value": 7},
    }


def test_without_a_folder_nothing_is_kept(faulty):
    variant = faulty.variants["v0_naive"]
    cache = ReferenceCache(None, faulty, 408)
    inputs = cache.inputs(variant, 1000)
    raw, expected = _direct(faulty, variant, 1000)
    np.testing.assert_array_equal(inputs["x"], raw["x"])
    np.testing.assert_array_equal(
        cache.reference(variant, 1000, inputs)["y"], expected["y"]
    )


def test_prefill_makes_every_accepted_size_once_and_drops_stale_entries(
    faulty, tmp_path
):
    root = tmp_path / "cache"
    stale = root / "1000-0123456789abcdef0123"  # an entry of another seed or source
    stale.mkdir(parents=True)
    (stale / "entry.json").write_text("{}")
    (root / "time").mkdir()  # not the cache's: kept
    sizes = sorted(set(faulty.sizes) | set(faulty.verify_sizes))
    entries = prefill(root, faulty, 408, sizes, threads=2)
    assert (
        sorted(e["n"] for e in entries) == sizes
    )  # one input: every variant shares it
    assert all(e["seconds"] > 0 for e in entries)
    assert not stale.exists() and (root / "time").is_dir()
    again = prefill(root, faulty, 408, sizes, threads=2)
    assert [e["seconds"] for e in again] == [0.0] * len(sizes)


def test_needed_keeps_one_variant_per_input_and_accepted_size():
    family = load_family(ROOT / "kernels/histogram")
    found = needed(family, [1000, 1048576])
    inputs = {json.loads(args).get("kind", "uniform") for args, _ in found}
    assert inputs == {"uniform", "skewed"}
    assert len(found) == 4
