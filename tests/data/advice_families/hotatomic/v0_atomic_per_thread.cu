// v0_atomic_per_thread: every thread adds its element to S with one float atomicAdd.
// nvcc cannot aggregate a float add (REDUX is integer only), so the SASS has one
// REDG.E.ADD.F32 per thread: n atomics on one address, executed one after another by
// the one L2 slice that holds S.

extern "C" __global__ void hot_v0(const float* __restrict__ X, float* __restrict__ S,
                                  int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(S, X[i]);
}
