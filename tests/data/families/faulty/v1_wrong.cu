// v1_wrong: deliberately wrong. Forgets the "+ 1" and returns early in the last
// (partial) block, leaving its outputs unwritten: faster, and must score nothing.
extern "C" __global__ void axpb_v1(const float* __restrict__ x, float* __restrict__ y,
                                   int n) {
    if ((blockIdx.x + 1) * blockDim.x > n) return;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = 2.0f * x[i];
}
