// v1_double_exp: the same steps with exp() and unsuffixed literals: -0.5 is a double, so
// v is converted to double, exp runs in double precision (DFMA on the FP64 pipe), and
// the result is converted back at each step.
extern "C" __global__ void fp64_v1(const float* __restrict__ x, float* __restrict__ y,
                                   int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
#pragma unroll
    for (int k = 0; k < 8; ++k) v = exp(-0.5 * v * v) + 0.25 * v;
    y[i] = v;
}
