// v1_tiled32: 32x32 shared-memory tiles (the seed report's "tiled TILE=32").
// Idea: a block computes a 32x32 tile of C. For each k-step of 32 it copies a 32x32
// tile of A and of B into shared memory (one element per thread, coalesced), waits at
// __syncthreads(), and then every thread does 32 FMAs from shared memory. Each global
// value is now read by a block once instead of 32 times, so global/L2 traffic drops
// ~32x (arithmetic intensity 8 FLOP/B from L2); the limit moves to shared memory:
// 40 shared loads per 32 FMAs (Bs[k][tx] is a conflict-free row read, one LDS per k;
// As[ty][k] is a warp-wide broadcast that ptxas fetches four k at a time, LDS.128).
// Expect higher FLOP/s than v0, a new Stall Barrier / MIO Throttle share, and
// shared-memory pipe utilisation well above v0.
// Out-of-range elements of the tiles are filled with zeros, so any n works; threads
// outside C still take part in the loads and barriers and only skip the final store.

#define TILE 32  // = blockDim.x = blockDim.y

// __launch_bounds__(1024, 2): at most 32 registers, so two blocks (2048 threads) fit
// on an SM in v1, v2 and v3 alike and occupancy is not what differs between them.
extern "C" __global__ void __launch_bounds__(TILE * TILE, 2)
sgemm_v1(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int n) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;
    int col = blockIdx.x * TILE + tx;

    float acc = 0.0f;
    for (int k0 = 0; k0 < n; k0 += TILE) {
        // Thread (ty, tx) loads A[row][k0+tx] and B[k0+ty][col]: both coalesced in tx.
        As[ty][tx] = (row < n && k0 + tx < n) ? A[(size_t)row * n + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < n && col < n) ? B[(size_t)(k0 + ty) * n + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();  // the tiles are overwritten in the next step
    }
    if (row < n && col < n) C[(size_t)row * n + col] = acc;
}
