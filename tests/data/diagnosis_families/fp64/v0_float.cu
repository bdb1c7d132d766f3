// v0_float: the baseline, eight steps of v = expf(-0.5f * v * v) + 0.25f * v in float.
extern "C" __global__ void fp64_v0(const float* __restrict__ x, float* __restrict__ y,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
#pragma unroll
    for (int k = 0; k < 8; ++k) v = expf(-0.5f * v * v) + 0.25f * v;
    y[i] = v;
}
