// v3_vec4: 16-byte loads for any n, deterministic two-kernel finish.
// Idea: v2's grid-stride loop over float4 groups (LDG.E.128): a quarter of the load
// instructions for the same bytes, two loads in flight per iteration; the n % 4 tail is
// added by the first threads, so any n works (cudaMalloc's 256-byte alignment keeps
// every group 16-byte aligned). The block sum is written to `partial`; reduce_finish
// adds the partials in a fixed order: the result is bit-identical from run to run.

#include "reduce_common.cuh"
#include "vec4_body.cuh"

extern "C" __global__ void reduce_v3(const float* __restrict__ X,
                                     float* __restrict__ partial, int n) {
    float v = block_sum(thread_sum_vec4(X, n));
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}
