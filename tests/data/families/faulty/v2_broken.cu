// v2_broken: deliberately does not compile; the report must show nvcc's message.
extern "C" __global__ void axpb_v2(const float* __restrict__ x, float* __restrict__ y,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0f * x[i] + offset;
}
