// The per-thread part of v3 and v4: float4 loads over a grid-stride loop, any n.
#pragma once

// Sum of this thread's share of X[0, n): two 16-byte loads in flight per iteration,
// then the n % 4 tail elements, one each for the first threads of the grid.
__device__ __forceinline__ float thread_sum_vec4(const float* __restrict__ X, int n) {
    const float4* X4 = reinterpret_cast<const float4*>(X);
    size_t groups = (size_t)n / 4;
    size_t s = (size_t)gridDim.x * blockDim.x;
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float4 a = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    float4 b = a;
    size_t g = t;
    for (; g + s < groups; g += 2 * s) {
        float4 x = X4[g], y = X4[g + s];
        a.x += x.x; a.y += x.y; a.z += x.z; a.w += x.w;
        b.x += y.x; b.y += y.y; b.z += y.z; b.w += y.w;
    }
    if (g < groups) {
        float4 x = X4[g];
        a.x += x.x; a.y += x.y; a.z += x.z; a.w += x.w;
    }
    float v = ((a.x + a.y) + (a.z + a.w)) + ((b.x + b.y) + (b.z + b.w));
    size_t tail = groups * 4 + t;
    if (tail < (size_t)n) v += X[tail];
    return v;
}
