// v0_naive: one thread per element, y = 2x + 1.
extern "C" __global__ void axpb_v0(const float* __restrict__ x, float* __restrict__ y,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
