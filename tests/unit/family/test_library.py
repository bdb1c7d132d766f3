"""A library variant (cuBLAS through torch, CuPy) is told apart from the author's own."""

from pathlib import Path

from nsightflow.family.registry import load_family

KERNELS = Path(__file__).resolve().parents[3] / "kernels"


def test_torch_and_cupy_launchers_are_libraries_triton_and_cuda_are_not():
    sgemm = load_family(KERNELS / "sgemm").variants
    assert sgemm["v8_torch_matmul"].is_library
    assert not sgemm["v7_double_buffer"].is_library
    assert load_family(KERNELS / "reduction").variants["v5_cupy_sum"].is_library
    # a Triton launcher's kernel is written by the author: advice applies to it
    assert not load_family(KERNELS / "vecadd").variants["v4_triton"].is_library
