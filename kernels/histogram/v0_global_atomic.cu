// v0_global_atomic: one global atomicAdd per element (ECE408 histogram, version A).
// Idea: a grid-stride loop over the bytes; each thread adds 1 to hist[byte] with
// atomicAdd. The result is unused, so the compiler emits RED (fire-and-forget) atomics
// that the L2 executes: every element is one L2 atomic (lts__t_sectors_op_red), and
// updates to the same bin serialize at its L2 slice. With uniform bytes the 256 bins
// spread the updates; with skewed input (90% in 4 bins) they queue on 4 addresses.

extern "C" __global__ void histogram_v0(const unsigned char* __restrict__ data,
                                        unsigned int* __restrict__ hist, int n) {
    size_t s = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n;
         i += s) {
        atomicAdd(&hist[data[i]], 1u);
    }
}
