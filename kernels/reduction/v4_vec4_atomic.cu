// v4_vec4_atomic: v3 finished with one atomicAdd per block instead of a second kernel.
// Idea: thread 0 of each block adds the block's sum straight into S (zeroed before the
// launch, manifest `init: {S: zero}`): one kernel and ~1056 atomics on one address
// instead of a second launch. Cheaper by about one launch, but the order of the float
// additions into S depends on block timing, so the last bits of S vary between runs
// (the deterministic v3 does not).

#include "reduce_common.cuh"
#include "vec4_body.cuh"

extern "C" __global__ void reduce_v4(const float* __restrict__ X,
                                     float* __restrict__ S, int n) {
    float v = block_sum(thread_sum_vec4(X, n));
    if (threadIdx.x == 0) atomicAdd(S, v);
}
