// v0_modes: y = 2x + 1, with a deliberate fault selected by MODE (a swept parameter).
// MODE 0: correct. 1: drops the "+ 1" (wrong result). 2: does not compile. 3: writes
// far out of bounds (illegal address: the CUDA context is lost). 4: never ends.
// 5: asks for 64 KB of static shared memory (ptxas refuses more than 48 KB).
// 6: correct code, but the manifest asks for 64 KB of dynamic shared memory at launch.
#ifndef MODE
#define MODE 0
#endif
#ifndef BLOCK
#define BLOCK 256
#endif

#if MODE == 2
#error "MODE 2 does not compile, on purpose"
#endif

extern "C" __global__ void __launch_bounds__(BLOCK < 1024 ? BLOCK : 1024)
axpb_modes(const float* __restrict__ x, float* __restrict__ y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#if MODE == 4
    const volatile float* probe = x;  // re-read global memory: the loop is kept
    while (probe[0] != 12345.0f) {
    }
#endif
#if MODE == 5
    __shared__ float big[16384];  // 64 KB
    big[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) y[i] = 2.0f * big[threadIdx.x] + 1.0f;
    return;
#endif
    if (i >= n) return;
#if MODE == 1
    y[i] = 2.0f * x[i];
#elif MODE == 3
    y[i + (1 << 30)] = 2.0f * x[i] + 1.0f;
#else
    y[i] = 2.0f * x[i] + 1.0f;
#endif
}
