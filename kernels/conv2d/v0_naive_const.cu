// v0_naive_const: one thread per output, the 5x5 mask in constant memory.
// Idea: thread (row, col) sums M[a][b] * N[row + a - 2][col + b - 2] over the mask,
// skipping taps outside the image (zero padding). Every thread of a warp reads the same
// M[a][b] in the same instruction, which the constant cache broadcasts; the image taps
// are 25 global loads per output, coalesced along the row, with neighbouring threads
// and rows re-reading the same pixels (25x reuse left to L1 and L2).

#define R 2
#define W (2 * R + 1)

__constant__ float M[W * W];

extern "C" __global__ void conv2d_v0(const float* __restrict__ N,
                                     float* __restrict__ P, int n) {
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= n || col >= n) return;
    float acc = 0.0f;
    for (int a = 0; a < W; ++a) {
        int r = row + a - R;
        if (r < 0 || r >= n) continue;
        for (int b = 0; b < W; ++b) {
            int c = col + b - R;
            if (c >= 0 && c < n) acc += M[a * W + b] * N[(size_t)r * n + c];
        }
    }
    P[(size_t)row * n + col] = acc;
}
