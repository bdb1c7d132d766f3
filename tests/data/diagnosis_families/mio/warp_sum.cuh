// The butterfly of the mio family: every lane ends with the sum over the warp's lanes.
#pragma once

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}
