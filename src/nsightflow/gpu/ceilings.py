"""Measured ceilings of the GPU: copy, L2, L1 and shared-memory bandwidth, FP32 rate.

Datasheet peaks come from ncu's device attributes (see :mod:`nsightflow.analysis.analyze`);
these are what the same GPU actually reaches, measured once per run with CUDA events.
"""

import time
from typing import Any

import numpy as np

from nsightflow.contracts import columns as col
from nsightflow.gpu.launch import GpuContext, load_helpers
from nsightflow.machine import double

COPY_BYTES = 2 * 1024**3  # 2 GiB each way: far beyond the 60 MB L2 of an H200
REPS = 20


def _median_ms(gpu: GpuContext, run: Any) -> float:
    cuda = gpu.cuda
    # Warm-up of about 0.3 s: an idle GPU sits at a low clock and ramps up under load.
    deadline = time.perf_counter() + 0.3
    while time.perf_counter() < deadline:
        run()
        gpu.ctx.synchronize()
    times = []
    for _ in range(REPS):
        start, end = cuda.Event(), cuda.Event()
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.time_till(end))
    return float(np.median(times))


VENDOR_SGEMM_N = 8192


def vendor_sgemm() -> dict[str, Any]:
    """The rate of cuBLAS SGEMM through cupy where installed (else None)."""
    try:
        import cupy as cp
    except ImportError:
        return {
            col.VENDOR_SGEMM_GFLOPS: None,
            "vendor_sgemm_note": "cupy not installed",
        }
    n = VENDOR_SGEMM_N
    rng = cp.random.default_rng(0)
    a = rng.random((n, n), dtype=cp.float32)
    b = rng.random((n, n), dtype=cp.float32)
    c = cp.empty((n, n), dtype=cp.float32)
    for _ in range(3):  # warm-up: cuBLAS handle, heuristics, clocks
        cp.matmul(a, b, out=c)
    times = []
    for _ in range(REPS):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        cp.matmul(a, b, out=c)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    ms = float(np.median(times))
    del a, b, c
    cp.get_default_memory_pool().free_all_blocks()
    return {
        col.VENDOR_SGEMM_GFLOPS: 2 * n**3 / (ms * 1e-3) / 1e9,
        "vendor_sgemm_note": f"cupy.matmul (cuBLAS) float32, n = {n}, median of {REPS}",
    }


def _full_grid(gpu: GpuContext, threads: int) -> int:
    """Blocks of ``threads`` that fill every SM once (all resident at the same time)."""
    cuda = gpu.cuda
    sms = gpu.device.get_attribute(cuda.device_attribute.MULTIPROCESSOR_COUNT)
    per_sm = gpu.device.get_attribute(
        cuda.device_attribute.MAX_THREADS_PER_MULTIPROCESSOR
    )
    return int(sms * (per_sm // threads))


HIT_BYTES = 512 * 16  # helpers.cu HIT_FLOAT4: the 8 KiB each block re-reads
LEVEL_PASSES = 256
LEVEL_ITERS = 4096


def hierarchy(gpu: GpuContext, helpers: Any) -> dict[str, Any]:
    """Read bandwidth (GB/s) of the L2, of L1 hits and of shared memory.

    Each is the bytes the grid loads over the median kernel time: the L2 kernel
    streams a buffer of a quarter of the L2 (``__ldcg``: L2 only) ``LEVEL_PASSES``
    times; the L1 and shared-memory kernels have every warp load 512 B per
    instruction from an 8 KiB block that stays in the SM. ``helpers`` is the loaded
    module of ``cuda/helpers.cu`` (``load_helpers``), shared with the FMA kernel.
    """
    cuda = gpu.cuda
    threads = 256
    blocks = _full_grid(gpu, threads)
    out = cuda.mem_alloc(blocks * threads * 4)
    l2_size = gpu.device.get_attribute(cuda.device_attribute.L2_CACHE_SIZE)
    n4 = l2_size // 4 // 16
    buf = cuda.mem_alloc(n4 * 16)
    cuda.memset_d32(buf, 0x3F800000, n4 * 4)
    grid = {"block": (threads, 1, 1), "grid": (blocks, 1)}
    l2 = helpers.get_function("l2_read")
    ms = _median_ms(
        gpu, lambda: l2(buf, np.int32(n4), np.int32(LEVEL_PASSES), out, **grid)
    )
    l2_gbps = LEVEL_PASSES * n4 * 16 / (ms * 1e-3) / 1e9
    hit_bytes = blocks * threads * LEVEL_ITERS * 16
    l1 = helpers.get_function("l1_read")
    ms = _median_ms(gpu, lambda: l1(buf, np.int32(LEVEL_ITERS), out, **grid))
    l1_gbps = hit_bytes / (ms * 1e-3) / 1e9
    shared = helpers.get_function("shared_read")
    ms = _median_ms(gpu, lambda: shared(np.int32(LEVEL_ITERS), out, **grid))
    shared_gbps = hit_bytes / (ms * 1e-3) / 1e9
    buf.free()
    out.free()
    return {
        "l2_gbps": l2_gbps,
        "l1_gbps": l1_gbps,
        "shared_gbps": shared_gbps,
        "hierarchy_method": (
            f"{blocks}x{threads} threads, float4 loads, median of {REPS}; L2: "
            f"{n4 * 16} B (a quarter of the {l2_size} B L2) read {LEVEL_PASSES} "
            f"times with ld.global.cg; L1 and shared: {HIT_BYTES} B per block, "
            f"{LEVEL_ITERS} loads per thread (ld.global.ca, ld.shared)"
        ),
    }


def measure() -> dict[str, Any]:
    """Copy bandwidth (read + written), the hierarchy's read bandwidths, FP32 rate."""
    if double.folder() is not None:  # a test's stand-in for the GPU
        return double.record("ceilings")
    vendor = vendor_sgemm()  # before pycuda's context: cupy uses the primary one
    with GpuContext() as gpu:
        cuda = gpu.cuda
        src = cuda.mem_alloc(COPY_BYTES)
        dst = cuda.mem_alloc(COPY_BYTES)
        cuda.memset_d32(src, 0x3F800000, COPY_BYTES // 4)
        ms = _median_ms(gpu, lambda: cuda.memcpy_dtod(dst, src, COPY_BYTES))
        copy_gbps = 2 * COPY_BYTES / (ms * 1e-3) / 1e9
        src.free()
        dst.free()

        helpers = load_helpers(gpu)
        levels = hierarchy(gpu, helpers)
        fma = helpers.get_function("fma_peak")
        # One full wave: every block resident from start to end. With 32 blocks per
        # SM (4 waves) ncu showed the SMs active only 96.8% of the elapsed cycles
        # (blocks of a wave end unevenly), capping the rate at 60 of 66.9 TFLOP/s.
        threads = 256
        blocks, iters = _full_grid(gpu, threads), 16384
        out = cuda.mem_alloc(blocks * threads * 4)
        ms = _median_ms(
            gpu,
            lambda: fma(
                out,
                np.int32(iters),
                np.float32(0.999),
                np.float32(0.001),
                block=(threads, 1, 1),
                grid=(blocks, 1),
            ),
        )
        fp32_gflops = 2 * 8 * iters * blocks * threads / (ms * 1e-3) / 1e9
        out.free()
        return {
            **vendor,
            **levels,
            col.GPU: gpu.device.name(),
            col.COPY_GBPS: copy_gbps,
            "copy_bytes": 2 * COPY_BYTES,
            col.FP32_GFLOPS: fp32_gflops,
            "method": f"copy: cuMemcpyDtoD of {COPY_BYTES} B, median of {REPS}; fp32: "
            f"{blocks}x{threads} threads, 8 FMA chains x {iters} iterations, median of "
            f"{REPS}",
        }
