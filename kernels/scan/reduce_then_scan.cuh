// Shared by the reduce-then-scan variants (v2, v3): the tile shape and pass 1, which
// only sums each tile (coalesced float4 loads, a block sum with shuffles, no writes).
#pragma once

#include "scan_common.cuh"

// Tiles of TILE = THREADS x PER elements.
#define THREADS 512
#define PER 16
#define TILE (THREADS * PER)

// Sum of one value per thread over a block of THREADS threads (in warp 0's lane 0).
__device__ __forceinline__ float block_total(float v) {
    __shared__ float warp_sums[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        v = lane < THREADS / 32 ? warp_sums[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

// Pass 1 of reduce-then-scan: the sum of each tile, coalesced float4 loads, no writes.
extern "C" __global__ void scan_v2_reduce(const float* __restrict__ X,
                                          float* __restrict__ sums, int n) {
    size_t base = (size_t)blockIdx.x * TILE;
    float v = 0.0f;
    if (base + TILE <= (size_t)n) {  // full tile: coalesced float4 loads
        const float4* X4 = reinterpret_cast<const float4*>(X + base);
#pragma unroll
        for (int k = 0; k < PER / 4; ++k) {
            float4 x = X4[k * THREADS + threadIdx.x];
            v += (x.x + x.y) + (x.z + x.w);
        }
    } else {
        for (size_t i = base + threadIdx.x; i < (size_t)n; i += THREADS) v += X[i];
    }
    v = block_total(v);
    if (threadIdx.x == 0) sums[blockIdx.x] = v;
}
