// Shared by the scan variants: warp and block scans with shuffles, the one-block scan
// of the tile totals (pass 2) and the offset pass of scan-then-propagate (pass 3).
#pragma once

__device__ __forceinline__ float warp_inclusive_scan(float v) {
    int lane = threadIdx.x & 31;
    for (int offset = 1; offset < 32; offset <<= 1) {
        float up = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset) v += up;
    }
    return v;
}

// Exclusive scan of one value per thread over the block (blockDim.x <= 1024, a
// multiple of 32); `total` receives the block's sum in every thread.
__device__ __forceinline__ float block_exclusive_scan(float v, float* total) {
    __shared__ float warp_totals[32];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    int warps = blockDim.x >> 5;
    float inclusive = warp_inclusive_scan(v);
    if (lane == 31) warp_totals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        float t = lane < warps ? warp_totals[lane] : 0.0f;
        warp_totals[lane] = warp_inclusive_scan(t);
    }
    __syncthreads();
    float before = warp > 0 ? warp_totals[warp - 1] : 0.0f;
    *total = warp_totals[warps - 1];
    __syncthreads();  // warp_totals may be reused by the caller's next scan
    return before + inclusive - v;
}

// Pass 2: exclusive scan, in place, of the `count` tile totals, by one block. Each
// thread scans a contiguous chunk sequentially; the chunk totals are scanned across
// the block, and each chunk is rewritten with its offset.
extern "C" __global__ void scan_tile_sums(float* __restrict__ sums, int count) {
    int per = (count + blockDim.x - 1) / blockDim.x;
    int begin = min((int)threadIdx.x * per, count);
    int end = min(begin + per, count);
    float chunk = 0.0f;
    for (int i = begin; i < end; ++i) chunk += sums[i];
    float total;
    float offset = block_exclusive_scan(chunk, &total);
    for (int i = begin; i < end; ++i) {
        float v = sums[i];
        sums[i] = offset;
        offset += v;
    }
}

// Pass 3 of scan-then-propagate: add tile b's offset (the exclusive scan of the tile
// totals) to its `tile` elements of Y.
extern "C" __global__ void scan_add_offsets(float* __restrict__ Y,
                                            const float* __restrict__ sums, int n,
                                            int tile) {
    int b = blockIdx.x;
    if (b == 0) return;  // the first tile's offset is 0
    float offset = sums[b];
    size_t begin = (size_t)b * tile;
    size_t end = min(begin + (size_t)tile, (size_t)n);
    for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x) Y[i] += offset;
}
