// v0_interleaved: shared-memory tree with interleaved addressing (Harris' kernel 1).
// Idea: each block of 256 threads loads 512 elements (two per thread, added on load)
// into shared memory and halves them in log2(256) = 8 rounds. In round `stride`, the
// threads with tid % (2*stride) == 0 add their neighbour: after the first round only
// every other lane of each warp works, then every fourth, ... so every warp stays
// busy while most of its lanes idle (warp divergence, low lane efficiency), and the %
// is an expensive instruction. Block partials go to `partial`; reduce_finish adds them.

#include "reduce_common.cuh"

#define BLOCK 256

extern "C" __global__ void reduce_v0(const float* __restrict__ X,
                                     float* __restrict__ partial, int n) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * BLOCK) + t;
    float v = 0.0f;
    if (i < (size_t)n) v = X[i];
    if (i + BLOCK < (size_t)n) v += X[i + BLOCK];
    s[t] = v;
    __syncthreads();
    for (unsigned stride = 1; stride < BLOCK; stride *= 2) {
        if (t % (2 * stride) == 0) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}
