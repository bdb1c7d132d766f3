// v4_hang: deliberately faulty. Never ends: the verify stage's time limit must kill it,
// and the GPU must be usable for the variants measured after it. The loop re-reads
// global memory (a side effect the compiler must keep) for a value x never holds.
// (A first version spun on a volatile local; nvcc removed that loop and it returned.)
extern "C" __global__ void axpb_v4(const float* __restrict__ x, float* __restrict__ y,
                                   int n) {
    const volatile float* probe = x;
    while (probe[0] != 12345.0f) {
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
