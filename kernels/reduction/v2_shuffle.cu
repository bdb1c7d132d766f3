// v2_shuffle: thread coarsening with a grid-stride loop, then warp shuffles.
// Idea: one wave of blocks (at most 1056 = 132 SMs x 8) reads the whole array with a
// grid-stride loop; each thread keeps four independent accumulators (four loads in
// flight) and adds ~n / 270k elements in registers before any communication. The
// block's 256 values are then summed with __shfl_down_sync inside each warp (no shared
// memory, no barrier per round) and one shared word per warp: 1 barrier per block
// instead of 9, and ~1056 partials instead of n / 512 for the second kernel.

#include "reduce_common.cuh"

extern "C" __global__ void reduce_v2(const float* __restrict__ X,
                                     float* __restrict__ partial, int n) {
    size_t s = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t end = (size_t)n;
    float a0 = 0.0f, a1 = 0.0f, a2 = 0.0f, a3 = 0.0f;
    for (; i + 3 * s < end; i += 4 * s) {
        a0 += X[i];
        a1 += X[i + s];
        a2 += X[i + 2 * s];
        a3 += X[i + 3 * s];
    }
    for (; i < end; i += s) a0 += X[i];
    float v = block_sum((a0 + a1) + (a2 + a3));
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}
