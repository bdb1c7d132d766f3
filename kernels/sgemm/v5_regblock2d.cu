// v5_regblock2d: 2-D register blocking -- each thread computes an 8x8 block of C.
// Idea: v4 reuses each B value 8 times but each A value only once per thread. Here a
// block of 256 threads computes a 128x128 tile of C; thread (threadRow, threadCol) owns
// rows threadRow*8..+7 and columns threadCol*8..+7. Per k it loads 8 values of A and
// 8 of B into registers (regM, regN) and does their 8x8 = 64 outer-product FMAs:
// 16 values per 64 FMAs, which ptxas fetches as 4 LDS.128 (v4: 3 per 8 FMAs), and the
// 128x128 block tile halves global/L2 traffic per FLOP again
// (AI 32 FLOP/B from L2). BK = 8: the 128x8 A tile and 8x128 B tile are 4 elements of
// each per thread per step. Expect FMA-pipe utilisation well above v4, ~128 registers
// per thread (64 accumulators) and so lower occupancy, and the kernel compute-bound
// rather than memory-bound (the seed report's "TILE=64 + 4x4 coarsening", one size up).
// Requires n % BM == 0, n % BN == 0 and n % BK == 0 (the manifest's `accepts`): no
// guards, every tile is full. BM, BN, BK, TM, TN are -D parameters (the manifest's
// `params`; defaults as above); the tile loads need THREADS to be a multiple of BK and
// BN, BM a multiple of THREADS / BK and BK of THREADS / BN (the manifest's constraints).

#ifndef BM
#define BM 128  // rows of C per block
#endif
#ifndef BN
#define BN 128  // columns of C per block
#endif
#ifndef BK
#define BK 8    // k-depth of one shared-memory step
#endif
#ifndef TM
#define TM 8    // rows of C per thread
#endif
#ifndef TN
#define TN 8    // columns of C per thread (BM*BN / (TM*TN) = 256 threads)
#endif
#define THREADS (BM * BN / (TM * TN))

extern "C" __global__ void __launch_bounds__(THREADS)
sgemm_v5(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int n) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int threadCol = tid % (BN / TN);  // 0..15
    const int threadRow = tid / (BN / TN);  // 0..15
    // Tile loads: thread tid fills As[aRow + i*A_STRIDE][aCol] and Bs[bRow + i*B_STRIDE][bCol].
    const int aRow = tid / BK, aCol = tid % BK;  // aRow 0..31
    const int bRow = tid / BN, bCol = tid % BN;  // bRow 0..1
    const int A_STRIDE = THREADS / BK;           // 32 rows of As per pass, 4 passes
    const int B_STRIDE = THREADS / BN;           // 2 rows of Bs per pass, 4 passes

    A += (size_t)blockIdx.y * BM * n;
    B += blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * n + blockIdx.x * BN;

    float acc[TM][TN] = {};
    float regM[TM], regN[TN];
    for (int k0 = 0; k0 < n; k0 += BK) {
#pragma unroll
        for (int r = 0; r < BM; r += A_STRIDE)
            As[aRow + r][aCol] = A[(size_t)(aRow + r) * n + k0 + aCol];
#pragma unroll
        for (int r = 0; r < BK; r += B_STRIDE)
            Bs[bRow + r][bCol] = B[(size_t)(k0 + bRow + r) * n + bCol];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int i = 0; i < TM; ++i) regM[i] = As[threadRow * TM + i][k];
#pragma unroll
            for (int j = 0; j < TN; ++j) regN[j] = Bs[k][threadCol * TN + j];
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            C[(size_t)(threadRow * TM + i) * n + threadCol * TN + j] = acc[i][j];
}
