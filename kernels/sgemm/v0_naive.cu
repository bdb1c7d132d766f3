// v0_naive: one thread per element of C, straight from the formula.
// Idea: the baseline. Thread (row, col) walks k = 0..n-1 and reads A[row][k] and
// B[k][col] from global memory: 2 loads per FMA, arithmetic intensity ~0.25 FLOP/B if
// nothing were cached. Within a warp the 32 threads share `row` (A[row][k] is one
// broadcast load) and have consecutive `col` (B[k][col] is one coalesced 128-byte
// load), so L1/L2 absorb most re-reads; expect L1/L2 and LSU traffic, not FMA, to be
// the limit: low FMA-pipe utilisation, Stall Long Scoreboard / LG Throttle dominant.
// Guards make any n work; every element of C with row, col < n is written once.

extern "C" __global__ void sgemm_v0(const float* __restrict__ A,
                                    const float* __restrict__ B,
                                    float* __restrict__ C, int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;  // fastest-varying: coalesced B and C
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n) return;

    const float* a = A + (size_t)row * n;  // row `row` of A
    const float* b = B + col;              // column `col` of B, stride n
    float acc = 0.0f;
    for (int k = 0; k < n; ++k) acc += a[k] * b[(size_t)k * n];
    C[(size_t)row * n + col] = acc;
}
