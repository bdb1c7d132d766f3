// v2_padded: v1 with rows of 33 floats in the tile.
// Idea: a block of 32x8 threads loads a 32x32 tile row by row (coalesced), then writes
// the transposed tile row by row (coalesced) by reading the tile by column: lanes read
// tile[threadIdx.x][j], 33 floats apart: 32 different banks, no conflict.

#define TILE 32

extern "C" __global__ void transpose_v2(const float* __restrict__ A,
                                        float* __restrict__ B, int n) {
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y0 = blockIdx.y * TILE;
    for (int j = threadIdx.y; j < TILE; j += 8) {
        int y = y0 + j;
        if (x < n && y < n) tile[j][threadIdx.x] = A[(size_t)y * n + x];
    }
    __syncthreads();
    int ox = y0 + threadIdx.x;  // column of B = row of A
    for (int j = threadIdx.y; j < TILE; j += 8) {
        int oy = blockIdx.x * TILE + j;
        if (ox < n && oy < n) B[(size_t)oy * n + ox] = tile[threadIdx.x][j];
    }
}
