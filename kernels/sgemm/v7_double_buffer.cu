// v7_double_buffer: v6 with two shared-memory buffers and register prefetch.
// Idea: in v6 each k-step is load -> __syncthreads -> compute -> __syncthreads, so the
// global-load latency of every tile is exposed (nothing else to do while it arrives)
// and there are two barriers per step. Here the shared tiles are doubled: while the
// block computes on buffer `cur`, each thread has already issued the float4 loads of
// the NEXT k-tile into registers; after its FMAs it stores them into the other buffer,
// and ONE __syncthreads() per k-step both publishes the new tile and frees the old
// one. Global latency overlaps 512 FMAs per thread.
// Why one barrier is enough: in step t the block reads buffer t%2 and writes buffer
// (t+1)%2, last read in step t-1, which every thread finished before the barrier that
// ended step t-1; the barrier ending step t orders those writes before step t+1 reads.
// Expect: Stall Barrier and Stall Long Scoreboard down from v6, higher FMA-pipe
// utilisation; twice the shared memory (16.6 KB); __launch_bounds__(256, 2) keeps
// registers at <= 128 so two blocks still fit on an SM like v6.
// Requires n % BM == 0, n % BN == 0 and n % BK == 0 (the manifest's `accepts`), as v6.
// Parameters (-D, swept by the manifest's `params`; the defaults are the 128x128x8 tile,
// 8x8 outputs per thread, 256 threads): BM x BN block tile, BK k-depth, TM x TN outputs
// per thread (TM/4 x TN/4 quadrants of 4x4, spaced 4*(BM/TM) rows and 4*(BN/TN)
// columns apart, so each quadrant read is one float4 and a half-warp's B reads are
// adjacent), WN threads of a warp side by side along n (32/WN of them down m), and
// MIN_BLOCKS resident blocks per SM asked of __launch_bounds__ (it caps the registers).

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
#ifndef WN
#define WN 16  // threads of one warp side by side along n
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 2  // resident blocks per SM for __launch_bounds__
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
static_assert(32 % WN == 0 && TCOLS % WN == 0 && TROWS % (32 / WN) == 0, "warp layout");

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
sgemm_v7(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int n) {
    __shared__ __align__(16) float As[2][BK][BM + PAD];  // As[buf][k][m] = A[m][k]
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x;
    // Thread (tr, tc) of the TROWS x TCOLS grid; a warp is 32/WN rows x WN columns of it.
    const int lane = tid % 32, warp = tid / 32;
    const int tc = (warp % (TCOLS / WN)) * WN + lane % WN;  // columns tc*4.. of each quadrant
    const int tr = (warp / (TCOLS / WN)) * (32 / WN) + lane / WN;  // rows tr*4.. likewise

    A += (size_t)blockIdx.y * BM * n;
    B += blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * n + blockIdx.x * BN;
    // Tile loads: float4 number f = tid + l*THREADS of each tile, A's along k, B's along n.
    const float* aSrc[A_LOADS];  // + k0: this thread's float4 of A
    const float* bSrc[B_LOADS];  // + k0*n: its float4 of B
    int aRow[A_LOADS], aK[A_LOADS], bRow[B_LOADS], bCol[B_LOADS];
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
        const int f = tid + l * THREADS;
        aRow[l] = f / (BK / 4);
        aK[l] = (f % (BK / 4)) * 4;
        aSrc[l] = A + (size_t)aRow[l] * n + aK[l];
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) {
        const int f = tid + l * THREADS;
        bRow[l] = f / (BN / 4);
        bCol[l] = (f % (BN / 4)) * 4;
        bSrc[l] = B + (size_t)bRow[l] * n + bCol[l];
    }

    // Prologue: k-tile 0 into buffer 0.
    float4 a[A_LOADS], b[B_LOADS];
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) a[l] = *reinterpret_cast<const float4*>(aSrc[l]);
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l) b[l] = *reinterpret_cast<const float4*>(bSrc[l]);
#pragma unroll
    for (int l = 0; l < A_LOADS; ++l) {
        As[0][aK[l] + 0][aRow[l]] = a[l].x;
        As[0][aK[l] + 1][aRow[l]] = a[l].y;
        As[0][aK[l] + 2][aRow[l]] = a[l].z;
        As[0][aK[l] + 3][aRow[l]] = a[l].w;
    }
#pragma unroll
    for (int l = 0; l < B_LOADS; ++l)
        *reinterpret_cast<float4*>(&Bs[0][bRow[l]][bCol[l]]) = b[l];
    __syncthreads();

    float acc[TM][TN] = {};
    float regM[TM], regN[TN];
    int cur = 0;
    for (int k0 = 0; k0 < n; k0 += BK) {
        const bool has_next = k0 + BK < n;
        if (has_next) {  // issue the next tile's loads now; they land during the FMAs
#pragma unroll
            for (int l = 0; l < A_LOADS; ++l)
                a[l] = *reinterpret_cast<const float4*>(aSrc[l] + k0 + BK);
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l)
                b[l] = *reinterpret_cast<const float4*>(bSrc[l] + (size_t)(k0 + BK) * n);
        }
#pragma unroll
        for (int k = 0; k < BK; ++k) {
#pragma unroll
            for (int q = 0; q < TM / 4; ++q) {
                float4 v = *reinterpret_cast<const float4*>(&As[cur][k][q * 4 * TROWS + tr * 4]);
                regM[4 * q + 0] = v.x; regM[4 * q + 1] = v.y;
                regM[4 * q + 2] = v.z; regM[4 * q + 3] = v.w;
            }
#pragma unroll
            for (int q = 0; q < TN / 4; ++q) {
                float4 v = *reinterpret_cast<const float4*>(&Bs[cur][k][q * 4 * TCOLS + tc * 4]);
                regN[4 * q + 0] = v.x; regN[4 * q + 1] = v.y;
                regN[4 * q + 2] = v.z; regN[4 * q + 3] = v.w;
            }
#pragma unroll
            for (int i = 0; i < TM; ++i)
#pragma unroll
                for (int j = 0; j < TN; ++j) acc[i][j] += regM[i] * regN[j];
        }
        if (has_next) {  // the other buffer: nobody reads it until after the barrier
            const int nxt = cur ^ 1;
#pragma unroll
            for (int l = 0; l < A_LOADS; ++l) {
                As[nxt][aK[l] + 0][aRow[l]] = a[l].x;
                As[nxt][aK[l] + 1][aRow[l]] = a[l].y;
                As[nxt][aK[l] + 2][aRow[l]] = a[l].z;
                As[nxt][aK[l] + 3][aRow[l]] = a[l].w;
            }
#pragma unroll
            for (int l = 0; l < B_LOADS; ++l)
                *reinterpret_cast<float4*>(&Bs[nxt][bRow[l]][bCol[l]]) = b[l];
        }
        __syncthreads();  // the one barrier per k-step
        cur ^= 1;
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
