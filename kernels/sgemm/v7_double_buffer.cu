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
// Requires n % 128 == 0 (the manifest's `accepts`), as v6.

#define BM 128  // rows of C per block
#define BN 128  // columns of C per block
#define BK 8    // k-depth of one shared-memory step
#define THREADS 256
#define PAD 4   // As row padding (floats): conflict-free transposing stores

extern "C" __global__ void __launch_bounds__(THREADS, 2)
sgemm_v7(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
         int n) {
    __shared__ __align__(16) float As[2][BK][BM + PAD];  // As[buf][k][m] = A[m][k]
    __shared__ __align__(16) float Bs[2][BK][BN];
    const int tid = threadIdx.x;
    const int tc = tid % 16;  // columns tc*4..+3 and 64+tc*4..+3
    const int tr = tid / 16;  // rows    tr*4..+3 and 64+tr*4..+3
    const int aRow = tid / 2, aK = (tid % 2) * 4;
    const int bRow = tid / 32, bCol = (tid % 32) * 4;

    A += (size_t)blockIdx.y * BM * n;
    B += blockIdx.x * BN;
    C += (size_t)blockIdx.y * BM * n + blockIdx.x * BN;
    const float* aSrc = A + (size_t)aRow * n + aK;  // + k0: this thread's float4 of A
    const float* bSrc = B + (size_t)bRow * n + bCol;  // + k0*n: its float4 of B

    // Prologue: k-tile 0 into buffer 0.
    float4 a = *reinterpret_cast<const float4*>(aSrc);
    float4 b = *reinterpret_cast<const float4*>(bSrc);
    As[0][aK + 0][aRow] = a.x;
    As[0][aK + 1][aRow] = a.y;
    As[0][aK + 2][aRow] = a.z;
    As[0][aK + 3][aRow] = a.w;
    *reinterpret_cast<float4*>(&Bs[0][bRow][bCol]) = b;
    __syncthreads();

    float acc[8][8] = {};
    float regM[8], regN[8];
    int cur = 0;
    for (int k0 = 0; k0 < n; k0 += BK) {
        const bool has_next = k0 + BK < n;
        if (has_next) {  // issue the next tile's loads now; they land during the FMAs
            a = *reinterpret_cast<const float4*>(aSrc + k0 + BK);
            b = *reinterpret_cast<const float4*>(bSrc + (size_t)(k0 + BK) * n);
        }
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float4 a0 = *reinterpret_cast<const float4*>(&As[cur][k][tr * 4]);
            float4 a1 = *reinterpret_cast<const float4*>(&As[cur][k][64 + tr * 4]);
            float4 b0 = *reinterpret_cast<const float4*>(&Bs[cur][k][tc * 4]);
            float4 b1 = *reinterpret_cast<const float4*>(&Bs[cur][k][64 + tc * 4]);
            regM[0] = a0.x; regM[1] = a0.y; regM[2] = a0.z; regM[3] = a0.w;
            regM[4] = a1.x; regM[5] = a1.y; regM[6] = a1.z; regM[7] = a1.w;
            regN[0] = b0.x; regN[1] = b0.y; regN[2] = b0.z; regN[3] = b0.w;
            regN[4] = b1.x; regN[5] = b1.y; regN[6] = b1.z; regN[7] = b1.w;
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += regM[i] * regN[j];
        }
        if (has_next) {  // the other buffer: nobody reads it until after the barrier
            const int nxt = cur ^ 1;
            As[nxt][aK + 0][aRow] = a.x;
            As[nxt][aK + 1][aRow] = a.y;
            As[nxt][aK + 2][aRow] = a.z;
            As[nxt][aK + 3][aRow] = a.w;
            *reinterpret_cast<float4*>(&Bs[nxt][bRow][bCol]) = b;
        }
        __syncthreads();  // the one barrier per k-step
        cur ^= 1;
    }
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
