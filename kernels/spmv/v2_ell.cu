// v2_ell: ELL SpMV, column-major, one thread per row (ECE408 spmv_ell).
// Idea: every row is padded to `width` entries (the longest row; padding has value 0)
// and entry k of row r is stored at k * n + r. At step k the 32 threads of a warp read
// 32 consecutive values and column indices: fully coalesced loads, no row pointers,
// the same trip count for every thread (no divergence). The price is the padding:
// width x n entries are read whatever the row lengths, which costs nothing on a band
// of equal rows and everything when a few rows are much longer than the rest.

extern "C" __global__ void spmv_ell(const int* __restrict__ ell_col,
                                    const float* __restrict__ ell_val,
                                    const float* __restrict__ x,
                                    float* __restrict__ y, int n, int width) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float sum = 0.0f;
    for (int k = 0; k < width; ++k) {
        size_t at = (size_t)k * n + row;
        sum += ell_val[at] * x[ell_col[at]];
    }
    y[row] = sum;
}
