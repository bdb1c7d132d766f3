// v1_csr_warp: CSR SpMV, one warp per row (the "vector" CSR kernel).
// Idea: the 32 lanes of a warp share a row: lane k takes entries start + k,
// start + k + 32, ..., so the lanes read consecutive values and column indices
// (coalesced), and __shfl_down_sync adds the 32 partial sums. Long rows are split 32
// ways (no imbalance); short rows waste lanes: a 9-entry row keeps 23 of 32 lanes idle
// (low lane efficiency), and every row costs a full warp's shuffle reduction.

extern "C" __global__ void spmv_csr_warp(const int* __restrict__ row_ptr,
                                         const int* __restrict__ col,
                                         const float* __restrict__ val,
                                         const float* __restrict__ x,
                                         float* __restrict__ y, int n) {
    int row = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (row >= n) return;  // whole warps leave together: row is uniform in a warp
    float sum = 0.0f;
    for (int j = row_ptr[row] + lane; j < row_ptr[row + 1]; j += 32)
        sum += val[j] * x[col[j]];
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (lane == 0) y[row] = sum;
}
