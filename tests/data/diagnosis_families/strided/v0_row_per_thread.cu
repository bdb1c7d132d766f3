// v0_row_per_thread: the baseline. Thread r walks row r of the 64-column matrix: at each
// step the 32 lanes of a warp touch 32 addresses 256 bytes apart, a sector each, for
// their loads and for their stores.
extern "C" __global__ void strided_v0(const float* __restrict__ x, float* __restrict__ y,
                                      int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n / 64) return;
    for (int j = 0; j < 64; ++j) y[row * 64 + j] = 2.0f * x[row * 64 + j] + 1.0f;
}
