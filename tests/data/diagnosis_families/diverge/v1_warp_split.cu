// v1_warp_split: the same loops, chosen per warp (odd and even warps): all 32 lanes of a
// warp take the same branch.
#include "chains.cuh"

extern "C" __global__ void diverge_v1(const float* __restrict__ x, float* __restrict__ y,
                                      int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    if ((threadIdx.x / 32) & 1) {
        v = chains_odd(v);
    } else {
        v = chains_even(v);
    }
    y[i] = v;
}
