"""What the compiler built: facts read from real cubins of small test kernels.

The kernels in tests/data/compiler/ are compiled here with nvcc (sm_90, -O3, as the
compile stage does) and read back with nvdisasm; nothing runs on a GPU.
"""

from pathlib import Path

from compiled import built, needs_toolkit
from nsightflow.tools.compiler_facts import (
    CompilerFacts,
    facts,
    warps_by_registers,
    width,
)

DATA = Path(__file__).resolve().parents[2] / "data" / "compiler"


def _compiled(name: str, tmp_path: Path) -> CompilerFacts:
    return built(DATA / f"{name}.cu", tmp_path)


@needs_toolkit
def test_a_float_atomic_per_thread_is_not_aggregated(tmp_path):
    found = _compiled("atomic_one_address", tmp_path)
    assert found.atomics == 1 and found.redux == 0
    assert not found.atomics_aggregated


@needs_toolkit
def test_nvcc_sums_each_warp_before_an_integer_atomic(tmp_path):
    found = _compiled("aggregated_atomic", tmp_path)
    assert found.atomics == 1 and found.redux == 1
    assert found.atomics_aggregated


@needs_toolkit
def test_a_dynamically_indexed_array_is_a_local_array_not_a_spill(tmp_path):
    found = _compiled("local_array", tmp_path)
    assert found.local == "local_array"
    assert found.stack_frame_bytes == 128 and found.spill_bytes == 0
    assert found.local_ops > 0


@needs_toolkit
def test_float4_accesses_fp64_and_mufu_are_seen(tmp_path):
    found = _compiled("wide_loads", tmp_path)
    assert found.ldg_bits == 128 and found.stg_bits == 128
    assert found.fp64 >= 1 and found.mufu >= 1
    assert found.local == ""


def test_access_widths_from_the_opcode_modifiers():
    assert width("LDG.E.128.CONSTANT R4, desc[UR4][R2.64]") == 128
    assert width("@!P0 STG.E.64 desc[UR4][R2.64], R4") == 64
    assert width("LDS.U8 R0, [R1]") == 8
    assert width("LDG.E R3, desc[UR4][R2.64]") == 32


def test_local_traffic_with_spill_bytes_is_a_spill():
    found = facts(["STL [R1], R4", "LDL R4, [R1]"], {"spill_store_bytes": 4})
    assert found.local == "spill"


def test_resident_warps_the_registers_allow():
    # 32 registers: 1024 per warp, 16 per partition, 64 per SM (the sm_90 maximum)
    assert warps_by_registers(32) == 64
    # 38 -> 40 per thread -> 1280 per warp -> 12 per 16384-register partition
    assert warps_by_registers(38) == 48
    # 231 (SGEMM v7) -> 232 -> 7424 per warp -> 2 per partition
    assert warps_by_registers(231) == 8
    assert warps_by_registers(0) == 0


def test_a_count_aggregated_by_nvcc_is_seen_without_a_redux():
    # atomicAdd(C, 1) to a warp-uniform address, as nvcc 13.0 builds it for sm_90
    count = [
        "VOTEU.ANY UR6, UPT, PT",
        "UFLO.U32 UR7, UR6",
        "POPC R5, UR6",
        "@P0 REDG.E.ADD.STRONG.GPU desc[UR4][R2.64], R5",
    ]
    found = facts(count, {})
    assert found.redux == 0 and found.elect == 1 and found.atomics_aggregated
    assert found.source_aggregation == 0  # VOTEU is the compiler's, not a ballot
    ballot = facts(["VOTE.ANY R0, PT, P1", "POPC R0, R0", *count[3:]], {})
    assert ballot.ballots == 1 and not ballot.atomics_aggregated
