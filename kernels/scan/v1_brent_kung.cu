// v1_brent_kung: Brent-Kung (work-efficient) tile scan, 2 elements per thread.
// Idea: 1024 threads scan a 2048-element tile with a reduction tree (up-sweep: strides
// 1..1024 build partial sums at positions 2^k - 1) and a distribution tree
// (down-sweep: strides 512..1 push them right). ~2 adds per element instead of ~10,
// but 21 barriers instead of 10, and the power-of-two strides cause shared-memory bank
// conflicts. Half as many tiles, so passes 2 and 3 have half as many blocks.

#include "scan_common.cuh"

#define TILE 2048

extern "C" __global__ void scan_v1_tiles(const float* __restrict__ X,
                                         float* __restrict__ Y,
                                         float* __restrict__ sums, int n) {
    __shared__ float s[TILE];
    int t = threadIdx.x;
    size_t base = (size_t)blockIdx.x * TILE;
    s[t] = base + t < (size_t)n ? X[base + t] : 0.0f;
    s[t + TILE / 2] = base + t + TILE / 2 < (size_t)n ? X[base + t + TILE / 2] : 0.0f;
    for (int stride = 1; stride <= TILE / 2; stride *= 2) {
        __syncthreads();
        int idx = (t + 1) * 2 * stride - 1;
        if (idx < TILE) s[idx] += s[idx - stride];
    }
    for (int stride = TILE / 4; stride > 0; stride /= 2) {
        __syncthreads();
        int idx = (t + 1) * 2 * stride - 1;
        if (idx + stride < TILE) s[idx + stride] += s[idx];
    }
    __syncthreads();
    if (base + t < (size_t)n) Y[base + t] = s[t];
    if (base + t + TILE / 2 < (size_t)n) Y[base + t + TILE / 2] = s[t + TILE / 2];
    if (t == 0) sums[blockIdx.x] = s[TILE - 1];
}
