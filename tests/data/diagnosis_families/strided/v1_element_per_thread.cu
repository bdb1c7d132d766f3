// v1_element_per_thread: one element per thread, consecutive lanes on consecutive
// addresses: a warp's 32 loads (stores) fill 4 sectors.
extern "C" __global__ void strided_v1(const float* __restrict__ x, float* __restrict__ y,
                                      int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + 1.0f;
}
