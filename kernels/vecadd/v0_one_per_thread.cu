// v0_one_per_thread: the textbook vector add (ECE408 Lab 1).
// Idea: one thread per element. grid = cdiv(n, 256) blocks of 256 threads; the last
// block's extra threads fall out at the bounds guard. Each warp reads 2 x 128 bytes and
// writes 128 bytes, fully coalesced: the kernel is bound by DRAM bandwidth, and every
// thread issues its own index arithmetic, two loads and a store for 12 bytes.

extern "C" __global__ void vecadd_v0(const float* __restrict__ A,
                                     const float* __restrict__ B,
                                     float* __restrict__ C, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) C[i] = A[i] + B[i];
}
