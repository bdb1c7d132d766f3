// v3_oob: deliberately faulty. Writes far past the end of y: an illegal memory access
// that kills the process (CUDA_ERROR_ILLEGAL_ADDRESS). Must cost this variant only.
extern "C" __global__ void axpb_v3(const float* __restrict__ x, float* __restrict__ y,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i + (1 << 30)] = 2.0f * x[i] + 1.0f;
}
