// v0_two_kernels: the baseline, two passes through a scratch array: t = 3x, y = t + 1.
extern "C" __global__ void fused_scale(const float* __restrict__ x, float* __restrict__ t,
                                       int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = 3.0f * x[i];
}

extern "C" __global__ void fused_shift(const float* __restrict__ t, float* __restrict__ y,
                                       int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = t[i] + 1.0f;
}
