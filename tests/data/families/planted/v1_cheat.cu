// v1_cheat: correct the first time each block runs at a size, then an empty kernel. A
// grid-stride loop over few blocks (two per SM) keeps the empty launch cheap; each block
// owns one slot (no race inside a launch) that remembers the n it last computed.
__device__ int computed_n[1024];

extern "C" __global__ void axpb_cheat(const float* __restrict__ x, float* __restrict__ y,
                                      int n) {
    if (computed_n[blockIdx.x] == n) return;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = 2.0f * x[i] + 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) computed_n[blockIdx.x] = n;
}
