// v0_local_array: a 32-bin histogram per thread indexed by the data. An array indexed at
// run time cannot live in registers, so ptxas puts it on the stack (128 bytes, 0 spill
// bytes) and every element is an LDL + STL: a local array, not a register spill.

#define BINS 32

extern "C" __global__ void local_v0(const int* __restrict__ x, int* __restrict__ bins,
                                    int n) {
    int h[BINS];
    for (int k = 0; k < BINS; ++k) h[k] = 0;
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        h[x[i] & (BINS - 1)] += 1;
    for (int k = 0; k < BINS; ++k)
        if (h[k]) atomicAdd(&bins[k], h[k]);
}
