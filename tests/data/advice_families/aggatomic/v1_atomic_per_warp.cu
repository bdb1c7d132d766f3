// v1_atomic_per_warp: v0's warp aggregation written by hand: a ballot of the odd lanes,
// its __popc, and one atomicAdd by lane 0. The same one RED per warp that nvcc emitted
// for v0, so the step is expected to change nothing.

extern "C" __global__ void agg_v1(const int* __restrict__ x, int* __restrict__ C,
                                  int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bool odd = i < n && (x[i] & 1);
    unsigned int votes = __ballot_sync(0xffffffffu, odd);
    if ((threadIdx.x & 31) == 0 && votes) atomicAdd(C, (int)__popc(votes));
}
