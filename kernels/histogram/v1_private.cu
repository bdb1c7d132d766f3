// v1_private: a privatized histogram in shared memory (ECE408 histogram, version B).
// Idea: each block first counts into its own 256-bin histogram in shared memory with
// shared-memory atomics (ATOMS, executed in the SM, far cheaper than an L2 round trip),
// then adds its non-zero bins to the global histogram: 256 global atomics per block
// instead of one per element. Two barriers per block: after zeroing and before the
// merge. Contention remains inside the block: lanes of a warp hitting the same bin
// serialize (l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_atom).

#define BINS 256

extern "C" __global__ void histogram_v1(const unsigned char* __restrict__ data,
                                        unsigned int* __restrict__ hist, int n) {
    __shared__ unsigned int h[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) h[b] = 0;
    __syncthreads();
    size_t s = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n;
         i += s) {
        atomicAdd(&h[data[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned int count = h[b];
        if (count) atomicAdd(&hist[b], count);
    }
}
