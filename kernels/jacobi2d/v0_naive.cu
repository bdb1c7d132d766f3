// v0_naive: one thread per grid point, straight from the formula.
// Idea: the baseline. Each thread reads its centre and four neighbours from global
// memory; neighbouring threads re-read the same values, and the caches (L1/L2) are
// what turns those five loads per point into roughly one DRAM read per point.
// Boundary points copy A so that every element of B is written.

extern "C" __global__ void jacobi2d_v0(const float* __restrict__ A,
                                       float* __restrict__ B, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;  // column: fastest-varying, coalesced
    int i = blockIdx.y * blockDim.y + threadIdx.y;  // row
    if (i >= n || j >= n) return;

    size_t idx = (size_t)i * n + j;
    if (i == 0 || j == 0 || i == n - 1 || j == n - 1) {
        B[idx] = A[idx];
        return;
    }
    B[idx] = 0.2f * (A[idx] + A[idx - 1] + A[idx + 1] + A[idx - n] + A[idx + n]);
}
