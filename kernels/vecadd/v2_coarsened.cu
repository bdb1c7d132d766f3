// v2_coarsened: the grid-stride loop unrolled by 4 (thread coarsening).
// Idea: each iteration handles elements i, i + s, i + 2s, i + 3s (s = grid stride):
// the four pairs of loads are issued before any add, so each thread has eight
// independent loads in flight instead of two, and the loop overhead (compare, branch,
// index update) is paid once per four elements. Loads stay coalesced: for every k,
// consecutive threads read consecutive elements. The remainder (fewer than 4 strides)
// is done one element at a time.

extern "C" __global__ void vecadd_v2(const float* __restrict__ A,
                                     const float* __restrict__ B,
                                     float* __restrict__ C, int n) {
    size_t s = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t end = (size_t)n;
    for (; i + 3 * s < end; i += 4 * s) {
        float a0 = A[i], a1 = A[i + s], a2 = A[i + 2 * s], a3 = A[i + 3 * s];
        float b0 = B[i], b1 = B[i + s], b2 = B[i + 2 * s], b3 = B[i + 3 * s];
        C[i] = a0 + b0;
        C[i + s] = a1 + b1;
        C[i + 2 * s] = a2 + b2;
        C[i + 3 * s] = a3 + b3;
    }
    for (; i < end; i += s) C[i] = A[i] + B[i];
}
