// Helper kernels nsightflow itself runs (not user variants).

// FP32 ceiling: eight independent FMA chains per thread, all in registers, so the
// FMA pipes never wait on memory or on a dependency. FLOPs = 2 * 8 * iters * threads.
extern "C" __global__ void fma_peak(float* out, int iters, float a, float b) {
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3;
    float x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
    // Unrolled so loop counter and branch take a negligible share of the issue slots.
#pragma unroll 16
    for (int i = 0; i < iters; ++i) {
        x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
        x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
    }
    // One store per thread keeps every chain live; a and b make it never taken.
    float sum = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
    if (sum == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Holds the GPU busy for `ns` nanoseconds, so that the host can queue a whole batch
// of timed launches behind it: the launches then run back to back and the events
// between them measure GPU time, not Python's launch overhead (NVBench's
// "blocking kernel" idea).
extern "C" __global__ void spin_ns(long long ns) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < (unsigned long long)ns);
}

// The memory hierarchy's read bandwidths. Every kernel sums what it loads into four
// accumulators per thread and stores the sum only when it equals a value it never
// takes, so no load is dead code. Bytes = 16 * loads (one float4 each).

// L2: the grid streams a buffer a quarter of the L2's size `passes` times. __ldcg
// caches at L2 only, so a pass after the first is served by the L2, not by each SM's L1.
extern "C" __global__ void l2_read(const float4* __restrict__ buf, int n4, int passes,
                                   float* out) {
    const int stride = gridDim.x * blockDim.x;
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
    for (int p = 0; p < passes; ++p) {
#pragma unroll 4
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
            const float4 v = __ldcg(buf + i);
            acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
        }
    }
    const float sum = acc.x + acc.y + acc.z + acc.w;
    if (sum == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// L1 (global loads that hit): every block reads the same 8 KiB again and again with
// __ldca (cached at every level), a warp 32 consecutive float4 (512 B) per load.
#define HIT_FLOAT4 512
extern "C" __global__ void l1_read(const float4* __restrict__ buf, int iters, float* out) {
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
    for (int k = 0; k < iters; ++k) {
        const float4 v = __ldca(buf + ((threadIdx.x + 32 * k) & (HIT_FLOAT4 - 1)));
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    const float sum = acc.x + acc.y + acc.z + acc.w;
    if (sum == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

// Shared memory: the same access pattern from an 8 KiB array in shared memory
// (a warp's 512 B in four conflict-free wavefronts).
extern "C" __global__ void shared_read(int iters, float* out) {
    __shared__ float4 tile[HIT_FLOAT4];
    for (int i = threadIdx.x; i < HIT_FLOAT4; i += blockDim.x)
        tile[i] = make_float4(i, i + 1, i + 2, i + 3);
    __syncthreads();
    float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
#pragma unroll 8
    for (int k = 0; k < iters; ++k) {
        const float4 v = tile[(threadIdx.x + 32 * k) & (HIT_FLOAT4 - 1)];
        acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    const float sum = acc.x + acc.y + acc.z + acc.w;
    if (sum == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}
