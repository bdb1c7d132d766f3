// v2_drift: y = 2x + 1 from the input as it is, then the input grows by 1, so every
// launch after the first computes from a different x.
extern "C" __global__ void axpb_drift(float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = 2.0f * x[i] + 1.0f;
        x[i] += 1.0f;
    }
}
