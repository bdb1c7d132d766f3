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
// Requires n % 128 == 0 (the manifest's `accepts`): no guards, every tile is full, and
// n % 4 == 0 keeps every float4 address 16-byte aligned.

#define BM 128  // rows of C per block
#define BN 128  // columns of C per block
#define BK 8    // k-depth of one shared-memory step
#define THREADS 256
#define PAD 4   // As row padding (floats): conflict-free transposing stores

extern "C" __global__ void __launch_bounds__(THREADS)
sgemm_v6(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int n) {
    __shared__ __align__(16) float As[BK][BM + PAD];  // As[k][m] = A[m][k]: transposed
    __shared__ __align__(16) float Bs[BK][BN];
    const int tid = threadIdx.x;
    const int tc = tid % 16;  // columns tc*4..+3 and 64+tc*4..+3
    const int tr = tid / 16;  // rows    tr*4..+3 and 64+tr*4..+3
    // Tile loads: one float4 of A (row aRow, k = aK..aK+3), one float4 of B (row bRow).
    const int aRow = tid / 2, aK = (tid % 2) * 4;    // 128 rows x 2 float4 = 256 threads
    const int bRow = tid / 32, bCol = (tid % 32) * 4;  // 8 rows x 32 float4 = 256 threads

    A += (size_t)blockIdx.y * BM * n;
    B += blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * n + blockIdx.x * BN;

    float acc[8][8] = {};
    float regM[8], regN[8];
    for (int k0 = 0; k0 < n; k0 += BK) {
        float4 a = *reinterpret_cast<const float4*>(&A[(size_t)aRow * n + k0 + aK]);
        As[aK + 0][aRow] = a.x;
        As[aK + 1][aRow] = a.y;
        As[aK + 2][aRow] = a.z;
        As[aK + 3][aRow] = a.w;
        *reinterpret_cast<float4*>(&Bs[bRow][bCol]) =
            *reinterpret_cast<const float4*>(&B[(size_t)(k0 + bRow) * n + bCol]);
        __syncthreads();
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float4 a0 = *reinterpret_cast<const float4*>(&As[k][tr * 4]);
            float4 a1 = *reinterpret_cast<const float4*>(&As[k][64 + tr * 4]);
            float4 b0 = *reinterpret_cast<const float4*>(&Bs[k][tc * 4]);
            float4 b1 = *reinterpret_cast<const float4*>(&Bs[k][64 + tc * 4]);
            regM[0] = a0.x; regM[1] = a0.y; regM[2] = a0.z; regM[3] = a0.w;
            regM[4] = a1.x; regM[5] = a1.y; regM[6] = a1.z; regM[7] = a1.w;
            regN[0] = b0.x; regN[1] = b0.y; regN[2] = b0.z; regN[3] = b0.w;
            regN[4] = b1.x; regN[5] = b1.y; regN[6] = b1.z; regN[7] = b1.w;
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += regM[i] * regN[j];
        }
        __syncthreads();
    }
    // acc[i][j]: row (i < 4 ? tr*4 + i : 64 + tr*4 + i-4), column likewise with tc, j.
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        int row = (i < 4 ? 0 : 64) + tr * 4 + (i % 4);
        float* c = C + (size_t)row * n;
        *reinterpret_cast<float4*>(&c[tc * 4]) =
            make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]);
        *reinterpret_cast<float4*>(&c[64 + tc * 4]) =
            make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]);
    }
}
