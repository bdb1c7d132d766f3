// Shared by the reduction variants: warp and block sums with shuffles, and the
// deterministic finishing kernel that adds the per-block partial sums.
#pragma once

__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// Sum over the block; the result is valid in thread 0. blockDim.x <= 1024.
__device__ __forceinline__ float block_sum(float v) {
    __shared__ float warp_sums[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    v = 0.0f;
    if (warp == 0) {
        if (lane < (int)((blockDim.x + 31) >> 5)) v = warp_sums[lane];
        v = warp_sum(v);
    }
    return v;
}

// Second pass of the two-kernel variants: one block adds `count` partial sums in a
// fixed order, so the result is the same bits on every run.
extern "C" __global__ void reduce_finish(const float* __restrict__ partial,
                                         float* __restrict__ S, int count) {
    float v = 0.0f;
    for (int i = threadIdx.x; i < count; i += blockDim.x) v += partial[i];
    v = block_sum(v);
    if (threadIdx.x == 0) S[0] = v;
}
