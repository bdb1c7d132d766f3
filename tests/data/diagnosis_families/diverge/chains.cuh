// The loop of the diverge family: four independent FMA chains of 256 steps each. It is
// written twice: the two copies compute the same values, and the empty inline assembly
// in each (a comment in the PTX only, no SASS) keeps the compiler from merging them
// into one loop before the branch, which would remove the divergence under test.
#pragma once

#define CHAINS(TAG)                                                  \
    float a = v, b = v + 1.0f, c = v - 1.0f, d = 0.5f * v;           \
    _Pragma("unroll 8") for (int k = 0; k < 256; ++k) {              \
        asm volatile("// " TAG);                                     \
        a = fmaf(a, 0.999f, 0.001f);                                 \
        b = fmaf(b, 0.998f, 0.002f);                                 \
        c = fmaf(c, 0.997f, 0.003f);                                 \
        d = fmaf(d, 0.996f, 0.004f);                                 \
    }                                                                \
    return a + b + c + d;

__device__ __forceinline__ float chains_odd(float v) { CHAINS("odd") }

__device__ __forceinline__ float chains_even(float v) { CHAINS("even") }
