// v0_lane_split: the baseline. Odd and even lanes of each warp run different FMA loops:
// the warp executes both, each with half of its lanes active.
#include "chains.cuh"

extern "C" __global__ void diverge_v0(const float* __restrict__ x, float* __restrict__ y,
                                      int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if (threadIdx.x & 1) {
        v = chains_odd(v);
    } else {
        v = chains_even(v);
    }
    y[i] = v;
}
