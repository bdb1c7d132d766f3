// v3_smem_transpose: v2's pass 3 with its loads and stores staged through shared memory.
// Idea: in v2 each thread loads its own 16 consecutive elements, so one warp load
// touches 32 sectors and uses half of each (ncu: 21 sectors per request where 4 is
// coalesced). Here the block first copies its 8192-element tile into shared memory
// with coalesced 4-byte loads (a warp reads 128 contiguous bytes: 4 sectors), then
// each thread reads its 16 consecutive values from shared memory, scans them as in v2,
// writes them back, and the block stores the tile with coalesced writes. One padding
// word per 32 keeps the per-thread reads conflict-free (thread t starts at bank
// 16 t + t / 2 mod 32: all 32 banks differ). Passes 1 and 2 are v2's.

#include "reduce_then_scan.cuh"

#define PAD(i) ((i) + (i) / 32)  // one padding word after every 32
#define ROW PAD(THREADS)           // PAD(k * THREADS + t) == k * ROW + PAD(t)

// 4 blocks of 512 per SM, as v2's pass 3 gets (without the bound ptxas takes 48 registers)
extern "C" __global__ void __launch_bounds__(THREADS, 4)
scan_v3_scan(const float* __restrict__ X, float* __restrict__ Y, const float* __restrict__ sums,
             int n) {
    __shared__ float tile[PAD(TILE)];
    size_t base = (size_t)blockIdx.x * TILE;
    int left = (int)min((size_t)TILE, (size_t)n - base);  // elements in this tile
    X += base;
    Y += base;
    float* column = tile + PAD(threadIdx.x);
#pragma unroll
    for (int k = 0; k < PER; ++k) {  // coalesced: element k * THREADS + t of the tile
        int i = k * THREADS + threadIdx.x;
        column[k * ROW] = i < left ? X[i] : 0.0f;
    }
    __syncthreads();
    float x[PER];
    float* mine = tile + PAD(threadIdx.x * PER);  // PAD(16 t + k) == PAD(16 t) + k
#pragma unroll
    for (int k = 0; k < PER; ++k) x[k] = mine[k];
#pragma unroll
    for (int k = 1; k < PER; ++k) x[k] += x[k - 1];
    float total;
    float offset = sums[blockIdx.x] + block_exclusive_scan(x[PER - 1], &total);
#pragma unroll
    for (int k = 0; k < PER; ++k) mine[k] = x[k] + offset;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < PER; ++k) {
        int i = k * THREADS + threadIdx.x;
        if (i < left) Y[i] = column[k * ROW];
    }
}
