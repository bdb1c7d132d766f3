// v2_tiled_transposed: v1 with B's tile stored transposed -- a bank-conflict lesson.
// Idea (the seed report's "3x: transposed load, no padding"): keep B's tile as
// Bs[col][k] so a thread's dot product reads "its" row Bs[tx][k]. It looks natural, but
// shared memory has 32 banks of 4 bytes and a 32-float row puts Bs[0][k], Bs[1][k], ...
// Bs[31][k] all in bank k: the 32 lanes of a warp (tx = 0..31) hit ONE bank with 32
// different addresses, so every store into Bs is replayed 32 times. ptxas fuses four
// consecutive k reads of Bs[tx][k..k+3] into one 16-byte LDS.128, but all 32 lanes
// still fall in the same 4 banks: 32 wavefronts per such load instead of 4, i.e. 8x
// the shared-memory wavefronts of v1 for B. Same global traffic and FLOPs as v1;
// expect a clear slowdown, shared-memory bank conflicts
// (l1tex__data_bank_conflicts_pipe_lsu_mem_shared) in the millions, and Stall MIO
// Throttle / Short Scoreboard up. v3_padded removes the conflicts with one line.

#define TILE 32  // = blockDim.x = blockDim.y

// __launch_bounds__(1024, 2): at most 32 registers, so two blocks (2048 threads) fit
// on an SM in v1, v2 and v3 alike and occupancy is not what differs between them.
extern "C" __global__ void __launch_bounds__(TILE * TILE, 2)
sgemm_v2(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];  // Bs[c][k] = B[k0 + k][col0 + c]: transposed
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        As[ty][tx] = (row < n && k0 + tx < n) ? A[(size_t)row * n + k0 + tx] : 0.0f;
        // Same coalesced global load as v1, stored down a column: 32-way conflict.
        Bs[tx][ty] = (k0 + ty < n && col < n) ? B[(size_t)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[tx][k];  // 32-way conflict
        __syncthreads();
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
