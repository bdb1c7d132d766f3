// v0_naive: B[x][y] = A[y][x], one thread per element.
// Idea: the baseline. threadIdx.x walks x: a warp reads 32 consecutive floats of a row
// of A (4 sectors per request) but writes 32 floats of a column of B, n floats apart:
// every store request touches 32 sectors, 8x the sectors its 128 bytes need.

extern "C" __global__ void transpose_v0(const float* __restrict__ A,
                                        float* __restrict__ B, int n) {
    int x = blockIdx.x * 32 + threadIdx.x;
    for (int y = blockIdx.y * 8 + threadIdx.y; y < min(n, blockIdx.y * 8 + 8); y += 8) {
        if (x < n) B[(size_t)x * n + y] = A[(size_t)y * n + x];
    }
}
