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
