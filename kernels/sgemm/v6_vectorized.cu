// v6_vectorized: v5 with 16-byte (float4) global loads and float4 shared-memory reads.
// Idea: three changes around the same 128x128x8 tiling and 8x8 outputs per thread.
//  1. Global loads are float4: per k-step each thread loads ONE float4 of A (4 k-values
//     of one row) and ONE float4 of B (4 columns of one row) instead of 4 + 4 scalars:
//     a quarter of the load instructions (LDG.E.128).
//  2. A's tile is stored transposed, As[k][m], so the 8 A values a thread needs at a
//     given k are contiguous and can be read as float4 like B's.
//  3. Thread (tr, tc) owns rows {tr*4..tr*4+3, 64+tr*4..64+tr*4+3} and columns
//     {tc*4..tc*4+3, 64+tc*4..64+tc*4+3} (four 4x4 quadrants) instead of v5's 8x8
//     square. At a given k the 16 threads tc = 0..15 of a half-warp then read 16
//     ADJACENT float4 of Bs (256 contiguous bytes: conflict-free), where v5's
//     threadCol*8 spacing put threads 0, 4, 8, 12 in the same 4 banks (a 2-way
//     conflict: twice the wavefronts of a conflict-free LDS.128). A reads are
//     warp-wide broadcasts (2 distinct tr per warp).
//  As rows are padded to BM + 4 floats so that the transposing scalar stores, where
//  lanes 2t and 2t+1 write rows k and k+4 of the same column, land in different banks
//  (row stride 132 = 4 mod 32 banks) and rows stay 16-byte aligned for float4.
// Expect: fewer issued instructions than v5 (LDG.128, 4 LDS.128 per k), no shared-
// memory bank conflicts, higher FMA-pipe utilisation; same FLOPs and global bytes.
// Requires n % BM == 0, n % BN == 0 and n % BK == 0 (the manifest's `accepts`): no
// guards, every tile is full, and n % 4 == 0 keeps every float4 address 16-byte aligned.
// Parameters (-D, swept by the manifest's `params`; the defaults are the tile above):
// BM x BN block tile, BK k-depth, TM x TN outputs per thread in TM/4 x TN/4 quadrants of
// 4x4 spaced 4*(BM/TM) rows and 4*(BN/TN) columns apart (8x8: the four quadrants above).

#ifndef BM
#define BM 128  // rows of C per block
#endif
#ifndef BN
#define BN 128  // columns of C per block
#endif
#ifndef BK
#define BK 8  // k-depth of one shared-memory step
#endif
#ifndef TM
#define TM 8  // rows of C per thread (a multiple of 4)
#endif
#ifndef TN
#define TN 8  // columns of C per thread (a multiple of 4)
#endif
#define PAD 4                       // As row padding (floats): conflict-free transposing stores
#define TCOLS (BN / TN)             // threads across the block tile (16)
#define TROWS (BM / TM)             // threads down the block tile (16)
#define THREADS (TCOLS * TROWS)     // 256
#define A_LOADS (BM * BK / 4 / THREADS)  // float4 of A per thread per k-tile (1)
#define B_LOADS (BK * BN / 4 / THREADS)  // float4 of B per thread per k-tile (1)

static_assert(TM % 4 == 0 && TN % 4 == 0, "TM and TN must be multiples of 4 (float4)");
static_assert(BK % 4 == 0, "BK must be a multiple of 4 (float4 loads of A)");
static_assert(A_LOADS >= 1 && A_LOADS * 4 * THREADS == BM * BK, "A tile: whole float4 per thread");
static_assert(B_LOADS >= 1 && B_LOADS * 4 * THREADS == BK * BN, "B tile: whole float4 per thread");

extern "C" __global__ void __launch_bounds__(THREADS)
sgemm_v6(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int n) {
    __shared__ __align__(16) float As[BK][BM + PAD];  // As[k][m] = A[m][k]: transposed
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tc = tid % TCOLS;  // columns tc*4..+3 of each column quadrant (64 apart at 8x8)
    const int tr = tid / TCOLS;  // rows    tr*4..+3 of each row quadrant

    A += (size_t)blockIdx.y * BM * n;
    B += blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * n + blockIdx.x * BN;

    float acc[TM][TN] = {};
    float regM[TM], regN[TN];
    for (int k0 = 0; k0 < n; k0 += BK) {
        // Tile loads: float4 number f = tid + l*THREADS of each tile (one of each at 8x8).
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const int f = tid + l * THREADS;
            const int aRow = f / (BK / 4), aK = (f % (BK / 4)) * 4;
            float4 a = *reinterpret_cast<const float4*>(&A[(size_t)aRow * n + k0 + aK]);
            As[aK + 0][aRow] = a.x;
            As[aK + 1][aRow] = a.y;
            As[aK + 2][aRow] = a.z;
            As[aK + 3][aRow] = a.w;
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int f = tid + l * THREADS;
            const int bRow = f / (BN / 4), bCol = (f % (BN / 4)) * 4;
            *reinterpret_cast<float4*>(&Bs[bRow][bCol]) =
                *reinterpret_cast<const float4*>(&B[(size_t)(k0 + bRow) * n + bCol]);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int q = 0; q < TM / 4; ++q) {
                float4 v = *reinterpret_cast<const float4*>(&As[k][q * 4 * TROWS + tr * 4]);
                regM[4 * q + 0] = v.x; regM[4 * q + 1] = v.y;
                regM[4 * q + 2] = v.z; regM[4 * q + 3] = v.w;
            }
#pragma unroll
            for (int q = 0; q < TN / 4; ++q) {
                float4 v = *reinterpret_cast<const float4*>(&Bs[k][q * 4 * TCOLS + tc * 4]);
                regN[4 * q + 0] = v.x; regN[4 * q + 1] = v.y;
                regN[4 * q + 2] = v.z; regN[4 * q + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    // acc[i][j]: row (i/4)*4*TROWS + tr*4 + i%4, column (j/4)*4*TCOLS + tc*4 + j%4.
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = (i / 4) * 4 * TROWS + tr * 4 + (i % 4);
        float* c = C + (size_t)row * n;
#pragma unroll
        for (int q = 0; q < TN / 4; ++q)
            *reinterpret_cast<float4*>(&c[q * 4 * TCOLS + tc * 4]) =
                make_float4(acc[i][4 * q], acc[i][4 * q + 1], acc[i][4 * q + 2],
                            acc[i][4 * q + 3]);
    }
}
