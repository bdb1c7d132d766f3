"""The advice families: three small ladders whose causes the advice must name.

tests/data/advice_families/ holds kernels measured on the H200 for the advice:
``hotatomic`` (n float atomics on one address, then one per warp, one per block),
``localarray`` (a per-thread histogram indexed at run time, on the stack, then in
registers) and ``aggatomic`` (``atomicAdd(C, 1)`` that nvcc already aggregates per
warp, then the same aggregation by hand). Here: the manifests load, each reference
gives the answer counted independently, and each variant's machine code (nvcc sm_90
-O3, as the compile stage builds it; nothing runs on a GPU) is what its idea says.
"""

import importlib.util
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from compiled import built, needs_toolkit
from nsightflow.diagnosis.advice_rows import compiler_did
from nsightflow.family.registry import load_families
from nsightflow.tools.compiler_facts import CompilerFacts

DATA = Path(__file__).resolve().parents[2] / "data" / "advice_families"


def _reference(family: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        f"ref_{family}", DATA / family / "reference.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compiled(family: str, variant: str, tmp_path: Path) -> CompilerFacts:
    return built(DATA / family / f"{variant}.cu", tmp_path)


def test_the_three_manifests_load_as_small_quick_ladders():
    found = {f.name: f for f in load_families(DATA)}
    assert sorted(found) == ["aggatomic", "hotatomic", "localarray"]
    assert list(found["hotatomic"].variants) == [
        "v0_atomic_per_thread",
        "v1_atomic_per_warp",
        "v2_atomic_per_block",
    ]
    for family in found.values():
        assert len(family.sizes) == 3 and max(family.sizes) <= 1 << 24
        assert len(family.profile_sizes) == 1


@pytest.mark.parametrize("n", [1, 1000, 100003])
def test_the_references_give_the_counted_answers(n):
    rng = np.random.default_rng(7)
    hot = _reference("hotatomic")
    x = hot.generate(n, rng)["X"]
    assert set(np.unique(x)) <= {0.0, 1.0}  # 0/1 values: float32 sums are exact
    assert hot.reference({"X": x}, n)["S"][0] == sum(1 for v in x.tolist() if v)
    local = _reference("localarray")
    xs = local.generate(n, rng)["x"]
    counts = [0] * 32
    for v in (xs % 32).tolist():
        counts[v] += 1
    assert local.reference({"x": xs}, n)["bins"].tolist() == counts
    agg = _reference("aggatomic")
    xa = agg.generate(n, rng)["x"]
    odd = sum(1 for v in xa.tolist() if v % 2)
    assert agg.reference({"x": xa}, n)["C"].tolist() == [odd]


@needs_toolkit
def test_hotatomic_goes_from_one_float_atomic_per_thread_to_one_per_block(tmp_path):
    v0 = _compiled("hotatomic", "v0_atomic_per_thread", tmp_path)
    assert v0.atomics == 1 and not v0.atomics_aggregated and v0.shuffles == 0
    v1 = _compiled("hotatomic", "v1_atomic_per_warp", tmp_path)
    assert v1.atomics == 1 and v1.shuffles == 5 and not v1.atomics_aggregated
    v2 = _compiled("hotatomic", "v2_atomic_per_block", tmp_path)
    assert v2.atomics == 1 and v2.shuffles == 10 and v2.lds_bits == 32


@needs_toolkit
def test_localarray_goes_from_a_stack_array_to_registers(tmp_path):
    v0 = _compiled("localarray", "v0_local_array", tmp_path)
    assert v0.local == "local_array" and v0.local_ops > 0
    assert v0.stack_frame_bytes == 128 and v0.spill_bytes == 0
    v1 = _compiled("localarray", "v1_registers", tmp_path)
    assert v1.local == "" and v1.local_ops == 0 and v1.stack_frame_bytes == 0
    assert v1.registers > v0.registers  # the 32 counts now live in registers


@needs_toolkit
def test_aggatomic_v0_is_already_aggregated_by_nvcc(tmp_path):
    v0 = _compiled("aggatomic", "v0_atomic_per_thread", tmp_path)
    # atomicAdd(C, 1): one elected lane adds the POPC of the active lanes, no REDUX
    assert v0.atomics == 1 and v0.redux == 0 and v0.elect == 1
    assert v0.atomics_aggregated and v0.source_aggregation == 0
    v1 = _compiled("aggatomic", "v1_atomic_per_warp", tmp_path)
    assert v1.atomics == 1 and v1.ballots == 1 and v1.source_aggregation == 1
    # a step between them that takes as long is "no change: nvcc already did it"
    variants = {
        "v0": {"compiler": v0.as_dict()},
        "v1": {"compiler": v1.as_dict(), "improves_on": "v0"},
    }
    assert compiler_did("v1", "v0", variants, 1.01, 1.05) is not None
