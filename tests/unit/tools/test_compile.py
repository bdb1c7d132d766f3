import shutil
from pathlib import Path

import pytest

from nsightflow.family.registry import load_family
from nsightflow.tools.nvcc import (
    compile_variant,
    local_includes,
    nvcc_argv,
    parse_ptxas,
)

ROOT = Path(__file__).resolve().parents[3]
FAMILIES = [
    ROOT / "kernels" / "jacobi2d",
    ROOT / "tests" / "data" / "families" / "faulty",
]
needs_nvcc = pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not on PATH")

PTXAS = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k1' for 'sm_90'
ptxas info    : Function properties for k1
    8 bytes stack frame, 4 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 255 registers, used 1 barriers, 1360 bytes smem, 380 bytes cmem[0]
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 16 registers, used 0 barriers
"""


def test_nvcc_argv_is_exact():
    var = load_family(FAMILIES[0]).variants["v1_smem"]
    assert nvcc_argv(var, "sm_90", Path("out.cubin")) == [
        "nvcc",
        "-arch=sm_90",
        "-cubin",
        "-O3",
        "-lineinfo",
        "-Xptxas",
        "-v",
        "-o",
        "out.cubin",
        str(var.source),
    ]


def test_parse_ptxas_reads_every_entry():
    k1, k2 = parse_ptxas(PTXAS)
    assert (k1.kernel, k1.registers, k1.shared_bytes, k1.barriers) == (
        "k1",
        255,
        1360,
        1,
    )
    assert (k1.stack_frame_bytes, k1.spill_store_bytes, k1.spill_load_bytes) == (
        8,
        4,
        12,
    )
    assert (k2.kernel, k2.registers, k2.shared_bytes) == ("k2", 16, 0)


@needs_nvcc
@pytest.mark.parametrize("folder", FAMILIES, ids=lambda p: p.name)
def test_every_variant_compiles_or_fails_as_data(folder, tmp_path):
    fam = load_family(folder)
    for name, var in fam.variants.items():
        record = compile_variant(var, "sm_90", tmp_path / f"{name}.cubin")
        if name == "v2_broken":
            assert record["status"] == "compile_failed"
            assert 'identifier "offset" is undefined' in record["message"]
            continue
        assert record["status"] == "ok", record["message"]
        res = record["resources"]
        assert res["kernel"] == var.kernel
        assert 8 <= res["registers"] <= 255
        assert res["spill_store_bytes"] == 0 and res["spill_load_bytes"] == 0
        assert (tmp_path / f"{name}.cubin").stat().st_size > 0


@needs_nvcc
def test_smem_variant_reports_its_tile():
    fam = load_family(FAMILIES[0])
    record = compile_variant(
        fam.variants["v1_smem"], "sm_90", Path("/tmp/nsf_v1.cubin")
    )
    # (8 + 2) x (32 + 2) floats of tile
    assert record["resources"]["shared_bytes"] == 10 * 34 * 4
    assert record["resources"]["barriers"] == 1


# The recorded pattern families (vecadd, reduction, histogram) compile through the
# pipeline's compile rule in tests/workflow's replay test; these three here.
UNRECORDED = ("conv2d", "scan", "spmv")


@needs_nvcc
def test_unrecorded_pattern_families_compile_every_kernel(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    variants = [
        var
        for name in UNRECORDED
        for var in load_family(ROOT / "kernels" / name).variants.values()
    ]

    def build(var):
        return compile_variant(
            var, "sm_90", tmp_path / f"{var.family}_{var.name}.cubin"
        )

    with ThreadPoolExecutor(max_workers=2) as pool:
        records = list(pool.map(build, variants))
    for var, record in zip(variants, records, strict=True):
        assert record["status"] == "ok", (var.name, record["message"])
        res = record["resources"]
        assert res["kernel"] == var.kernel and res["spill_store_bytes"] == 0
        if len(var.kernels) > 1:  # every launch's kernel was found, with resources
            assert set(record["kernels"]) == set(var.kernels)


def test_local_includes_follow_quotes_recursively_from_each_file(tmp_path):
    (tmp_path / "common").mkdir()
    (tmp_path / "common/inner.cuh").write_text("#define X 1\n")
    (tmp_path / "common/outer.cuh").write_text('#include "inner.cuh"\n')
    (tmp_path / "v0.cu").write_text(
        '#include <cuda_fp16.h>\n  #  include "common/outer.cuh"\n'
        '#include "absent.cuh"\n// #include is text here\n'
    )
    found = local_includes(tmp_path / "v0.cu")
    assert found == sorted(
        [
            (tmp_path / "common/inner.cuh").resolve(),
            (tmp_path / "common/outer.cuh").resolve(),
        ]
    )
    # a header that includes itself (guarded) is listed once, and the walk ends
    (tmp_path / "common/inner.cuh").write_text('#pragma once\n#include "inner.cuh"\n')
    assert len(local_includes(tmp_path / "v0.cu")) == 2
