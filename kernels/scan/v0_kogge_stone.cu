// v0_kogge_stone: Kogge-Stone tile scan, double-buffered (pass 1 of 3).
// Idea: each block of 1024 threads scans a 1024-element tile in shared memory. In step
// `stride` (1, 2, 4, ..., 512) every thread i >= stride adds the value stride to its
// left. Reading one buffer and writing the other (double buffering) removes the
// read-after-write race with one barrier per step instead of two. 10 steps and ~10
// adds per element (n log n work): fast in steps, wasteful in work. The tile's last
// value goes to `sums`; scan_tile_sums and scan_add_offsets finish the scan.

#include "scan_common.cuh"

#define TILE 1024

extern "C" __global__ void scan_v0_tiles(const float* __restrict__ X,
                                         float* __restrict__ Y,
                                         float* __restrict__ sums, int n) {
    __shared__ float buf[2][TILE];
    int t = threadIdx.x;
    size_t i = (size_t)blockIdx.x * TILE + t;
    int in = 0;
    buf[0][t] = i < (size_t)n ? X[i] : 0.0f;
    __syncthreads();
    for (int stride = 1; stride < TILE; stride *= 2) {
        float v = buf[in][t];
        if (t >= stride) v += buf[in][t - stride];
        buf[1 - in][t] = v;
        in = 1 - in;
        __syncthreads();
    }
    if (i < (size_t)n) Y[i] = buf[in][t];
    if (t == TILE - 1) sums[blockIdx.x] = buf[in][TILE - 1];
}
