// v0_csr_thread: CSR SpMV, one thread per row (ECE408 spmv_csr).
// Idea: thread `row` walks its row's entries row_ptr[row] .. row_ptr[row + 1] - 1,
// multiply-adding val[j] * x[col[j]]. Simple and work-efficient, but at every step
// the 32 threads of a warp read entries ~9 apart (one per row), so each load request
// touches many sectors of which a warp uses only a few bytes each; and a warp runs
// as long as its longest row (load imbalance on skewed matrices).

extern "C" __global__ void spmv_csr_thread(const int* __restrict__ row_ptr,
                                           const int* __restrict__ col,
                                           const float* __restrict__ val,
                                           const float* __restrict__ x,
                                           float* __restrict__ y, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float sum = 0.0f;
    for (int j = row_ptr[row]; j < row_ptr[row + 1]; ++j) sum += val[j] * x[col[j]];
    y[row] = sum;
}
