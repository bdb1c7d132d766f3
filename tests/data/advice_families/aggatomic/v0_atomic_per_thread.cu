// v0_atomic_per_thread: atomicAdd(C, 1) by every thread whose value is odd. The address
// is warp-uniform and the increment a constant, so nvcc aggregates it already: an elected
// lane (VOTEU.ANY + UFLO) adds the POPC of the active lanes with one REDG per warp.

extern "C" __global__ void agg_v0(const int* __restrict__ x, int* __restrict__ C,
                                  int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && (x[i] & 1)) atomicAdd(C, 1);
}
