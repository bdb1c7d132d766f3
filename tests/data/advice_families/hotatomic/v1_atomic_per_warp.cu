// v1_atomic_per_warp: a warp shuffle reduction (5 SHFL.BFLY steps), then lane 0 adds
// the warp's sum to S: one atomic per 32 elements instead of one per element.

extern "C" __global__ void hot_v1(const float* __restrict__ X, float* __restrict__ S,
                                  int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? X[i] : 0.0f;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(S, v);
}
