// v4_regblock1d: 1-D register blocking -- each thread computes 8 outputs of a column.
// Idea: in v1..v3 every FMA needs its own shared-memory load(s). Here a block computes
// a 64x64 tile of C with 512 threads, and each thread keeps TM = 8 accumulators for
// rows threadRow*8 .. threadRow*8+7 of one column. Per k it loads ONE value of B's tile
// into a register and reuses it for 8 FMAs, and the 8 values of A it needs are the same
// for the whole warp (a broadcast), so shared-memory instructions per FMA fall from
// ~1.25 to ~0.4 and the block tile grows from 32x32 to 64x64, halving global/L2 traffic
// per FLOP again (AI 16 FLOP/B from L2). k-steps are BK = 8 deep: a 64x8 tile of A and
// an 8x64 tile of B, one element of each per thread per step.
// Expect higher FMA-pipe utilisation than v3, fewer shared loads (smsp__inst_executed
// _op_shared_ld) per FLOP, more registers per thread.
// Requires n % BM == 0, n % BN == 0 and n % BK == 0 (the manifest's `accepts`): no
// guards, every tile is full. BM, BN, BK, TM are -D parameters (the manifest's `params`;
// defaults as above). With other values a thread loads BM*BK/THREADS elements of A's tile
// and BK*BN/THREADS of B's per k-step (one each at the defaults).

#ifndef BM
#define BM 64  // rows of C per block
#endif
#ifndef BN
#define BN 64  // columns of C per block
#endif
#ifndef BK
#define BK 8   // k-depth of one shared-memory step
#endif
#ifndef TM
#define TM 8   // rows of C per thread (BM * BN / TM = 512 threads)
#endif
#define THREADS (BM * BN / TM)
#define A_STRIDE (THREADS / BK)  // rows of As filled per pass (64 = BM: one pass)
#define B_STRIDE (THREADS / BN)  // rows of Bs filled per pass (8 = BK: one pass)

extern "C" __global__ void __launch_bounds__(THREADS)
sgemm_v4(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int n) {
    __shared__ float As[BM][BK];
    __shared__ float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int threadCol = tid % BN;  // 0..63: this thread's column of the C tile
    const int threadRow = tid / BN;  // 0..7: rows threadRow*TM .. threadRow*TM + TM-1
    // Element (aRow + r, aCol) of As and (bRow + r, bCol) of Bs for each pass r (one pass
    // each at the defaults: BM*BK = BK*BN = 512 = threads).
    const int aRow = tid / BK, aCol = tid % BK;  // As[aRow][aCol]
    const int bRow = tid / BN, bCol = tid % BN;  // Bs[bRow][bCol]

    A += (size_t)blockIdx.y * BM * n;                         // first row of this block
    B += blockIdx.x * BN;                                     // first column
    C += (size_t)blockIdx.y * BM * n + blockIdx.x * BN;       // top-left of the C tile

    float acc[TM] = {};
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
            float b = Bs[k][threadCol];  // one register, reused TM times
#pragma unroll
            for (int r = 0; r < TM; ++r) acc[r] += As[threadRow * TM + r][k] * b;
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < TM; ++r) C[(size_t)(threadRow * TM + r) * n + threadCol] = acc[r];
}
