// v2_reduce_then_scan: coarsened reduce-then-scan (passes 1 and 3; pass 2 shared).
// Idea: tiles of 8192 elements, 16 per thread in registers. Pass 1 (scan_v2_reduce)
// only sums each tile: coalesced float4 loads, a block sum with shuffles, no writes.
// Pass 2 scans the tile totals into offsets. Pass 3 (scan_v2_scan) re-reads the tile:
// each thread loads its 16 consecutive elements as 4 float4, scans them sequentially
// in registers, gets the sum of the threads before it from a warp-shuffle block scan,
// and writes the 16 results with the tile's offset added. DRAM traffic 12 n bytes
// (X twice, Y once) instead of 16 n (X, Y written, Y re-read and re-written), and
// 2 barriers per 8192 elements instead of ~20 per 2048.

#include "reduce_then_scan.cuh"  // tile shape and pass 1 (scan_v2_reduce), shared with v3

extern "C" __global__ void scan_v2_scan(const float* __restrict__ X,
                                        float* __restrict__ Y,
                                        const float* __restrict__ sums, int n) {
    size_t first = (size_t)blockIdx.x * TILE + (size_t)threadIdx.x * PER;
    bool full = first + PER <= (size_t)n;
    float x[PER];
    if (full) {
        const float4* X4 = reinterpret_cast<const float4*>(X + first);
#pragma unroll
        for (int k = 0; k < PER / 4; ++k) {
            float4 q = X4[k];
            x[4 * k] = q.x; x[4 * k + 1] = q.y; x[4 * k + 2] = q.z; x[4 * k + 3] = q.w;
        }
    } else {
#pragma unroll
        for (int k = 0; k < PER; ++k) x[k] = first + k < (size_t)n ? X[first + k] : 0.0f;
    }
#pragma unroll
    for (int k = 1; k < PER; ++k) x[k] += x[k - 1];
    float total;
    float offset = sums[blockIdx.x] + block_exclusive_scan(x[PER - 1], &total);
#pragma unroll
    for (int k = 0; k < PER; ++k) x[k] += offset;
    if (full) {
        float4* Y4 = reinterpret_cast<float4*>(Y + first);
#pragma unroll
        for (int k = 0; k < PER / 4; ++k)
            Y4[k] = make_float4(x[4 * k], x[4 * k + 1], x[4 * k + 2], x[4 * k + 3]);
    } else {
#pragma unroll
        for (int k = 0; k < PER; ++k)
            if (first + k < (size_t)n) Y[first + k] = x[k];
    }
}
