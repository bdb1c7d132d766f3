// v4_hang: deliberately faulty. Never ends: the verify stage's time limit must kill it,
// and the GPU must be usable for the variants measured after it.
extern "C" __global__ void axpb_v4(const float* __restrict__ x, float* __restrict__ y,
                                   int n) {
    volatile int spin = 1;
    while (spin) {
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
