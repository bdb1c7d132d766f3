// v2_replicated: 8 sub-histograms per block (privatization with replication).
// Idea: lane % 8 picks one of 8 copies of the block's histogram, so at most 4 lanes
// of a warp (lanes l, l+8, l+16, l+24) can update the same shared address at once,
// instead of up to 32 with skewed input. Each copy is padded to 257 words, so the same
// bin in different copies falls in different banks. At the end each thread sums the 8
// copies of its bins and adds the total to the global histogram. Costs 8 KB of shared
// memory and a longer merge; pays where many lanes collide on a few bins.

#define BINS 256
#define COPIES 8
#define PITCH (BINS + 1)

extern "C" __global__ void histogram_v2(const unsigned char* __restrict__ data,
                                        unsigned int* __restrict__ hist, int n) {
    __shared__ unsigned int h[COPIES * PITCH];
    for (int k = threadIdx.x; k < COPIES * PITCH; k += blockDim.x) h[k] = 0;
    __syncthreads();
    unsigned int* mine = h + (threadIdx.x % COPIES) * PITCH;
    size_t s = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n;
         i += s) {
        atomicAdd(&mine[data[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) {
        unsigned int count = 0;
        for (int c = 0; c < COPIES; ++c) count += h[c * PITCH + b];
        if (count) atomicAdd(&hist[b], count);
    }
}
