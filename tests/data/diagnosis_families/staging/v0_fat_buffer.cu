// v0_fat_buffer: y = 2x + 1, one element per thread, staged through shared memory.
// Idea: the baseline. The block declares a 48 KB buffer but uses 64 floats of it: an SM
// (228 KB of shared memory) holds 4 such blocks, 8 warps of its 64, and each warp has a
// single 4-byte load in flight, far too few bytes to cover the DRAM latency.

#define BUFFER (12 * 1024)

extern "C" __global__ void staging_v0(const float* __restrict__ x, float* __restrict__ y,
                                      int n) {
    __shared__ float buf[BUFFER];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    volatile float* slot = buf + (threadIdx.x * 193) % BUFFER;
    *slot = x[i];
    y[i] = 2.0f * *slot + 1.0f;
}
