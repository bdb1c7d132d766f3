// v0_shuffle_each: the baseline. A warp reads its 256 values in eight rounds of 32
// consecutive floats; each power of each value is summed across the warp by its own
// butterfly: 3 x 8 x 5 = 120 shuffles per thread, no shared memory.
#include "warp_sum.cuh"

extern "C" __global__ void mio_v0(const float* __restrict__ x, float* __restrict__ y,
                                  int n) {
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    float s = 0.0f;
    for (int r = 0; r < 8; ++r) {
        int i = warp * 256 + r * 32 + lane;
        float v = i < n ? x[i] : 0.0f;
        s += warp_sum(v) + warp_sum(v * v) + warp_sum(v * v * v);
    }
    if (lane == 0 && warp * 256 < n) y[warp] = s;
}
