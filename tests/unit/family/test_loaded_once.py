"""The family manifest is read once per process and passed on as an object.

Counted where the manifest is read (``registry._read_manifest``, which every
``load_family`` and ``find_variant`` goes through), per family folder.
"""

from collections import Counter
from pathlib import Path

import pytest

import nsightflow.api as nf
from nsightflow.family import registry
from nsightflow.gpu import driver
from nsightflow.io import write_json
from nsightflow.tools.ncu import NcuSettings

ROOT = Path(__file__).resolve().parents[3]
KERNELS = ROOT / "kernels"


@pytest.fixture
def reads(monkeypatch) -> Counter:
    """Manifest reads of this process by family folder name."""
    counted: Counter = Counter()
    read = registry._read_manifest

    def counting(path: Path):
        counted[path.parent.name] += 1
        return read(path)

    monkeypatch.setattr(registry, "_read_manifest", counting)
    return counted


def test_a_replay_through_the_api_reads_the_manifest_once(reads, recording, tmp_path):
    # replay-family, analyze, the diagnosis, sweep tables, figures and the report
    # run in this process (parse in a child); each takes the family loaded once
    nf.replay(["vecadd"], tmp_path / "results", recording, KERNELS, sanitize=False)
    assert reads == Counter({"vecadd": 1})


def test_the_profile_stage_reads_the_manifest_once_for_every_variant(reads, tmp_path):
    family = registry.load_family(KERNELS / "vecadd")
    reads.clear()
    variants = {}
    for name in family.variants:
        verify = tmp_path / f"{name}.json"
        write_json(verify, {"status": "ok", "message": ""})
        variants[name] = {"verify": verify, "cubin": tmp_path / f"{name}.cubin"}
    _, ready = driver._ready_runs(KERNELS, "vecadd", variants, NcuSettings())
    assert len(ready) == len(family.variants) > 1
    assert reads == Counter({"vecadd": 1})


def test_no_module_but_the_registry_parses_a_manifest():
    package = ROOT / "src" / "nsightflow"
    readers = {"family/registry.py", "family/tuned.py"}  # tuned.py: tuned.yaml only
    parsing = sorted(
        path.relative_to(package).as_posix()
        for path in package.rglob("*.py")
        if "safe_load(" in path.read_text()
    )
    assert set(parsing) <= readers, parsing
