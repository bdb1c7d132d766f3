// v1_sequential: the same tree with sequential addressing (Harris' kernel 3).
// Idea: in round `stride` (128, 64, ..., 1) the threads tid < stride add
// s[tid + stride]. The working threads are contiguous, so in the first rounds whole
// warps either work with all 32 lanes or skip the add entirely; only the last five
// rounds (stride < 32) run partial warps. Lane efficiency rises, the divergent
// branches and the modulo disappear, and the shared-memory accesses become
// conflict-free (consecutive words). Same loads, partials and second kernel as v0.

#include "reduce_common.cuh"

#define BLOCK 256

extern "C" __global__ void reduce_v1(const float* __restrict__ X,
                                     float* __restrict__ partial, int n) {
    __shared__ float s[BLOCK];
    unsigned t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * (2 * BLOCK) + t;
    float v = 0.0f;
    if (i < (size_t)n) v = X[i];
    if (i + BLOCK < (size_t)n) v += X[i + BLOCK];
    s[t] = v;
    __syncthreads();
    for (unsigned stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}
