// v3_hyb: HYB SpMV = ELL for the regular part + COO for the rest (Bell & Garland).
// Idea: the ELL width is the regular row length (the longest row outside the hub
// rows), so the ELL part carries almost no padding; the entries of longer rows beyond
// that width are stored as COO triples (row, column, value) and added by a second
// kernel, one thread per entry, with atomicAdd into y (several threads add to one hub
// row). Two launches: spmv_ell (v2's kernel, width hyb_width) writes y, then spmv_coo.

#include "v2_ell.cu"

extern "C" __global__ void spmv_coo(const int* __restrict__ coo_row,
                                    const int* __restrict__ coo_col,
                                    const float* __restrict__ coo_val,
                                    const float* __restrict__ x,
                                    float* __restrict__ y, int ncoo) {
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < ncoo) atomicAdd(&y[coo_row[e]], coo_val[e] * x[coo_col[e]]);
}
