// v2_coarsen2: each thread updates two vertically adjacent points (v0 plus coarsening).
// Idea (the seed report's step 3.2): the centre of row i is the upper neighbour of row
// i+1 and the centre of row i+1 the lower neighbour of row i, so one thread that owns
// both rows loads 8 values instead of 10 and keeps the shared two in registers. Half
// as many threads, each with more independent loads in flight.

extern "C" __global__ void jacobi2d_v2(const float* __restrict__ A,
                                       float* __restrict__ B, int n) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = 2 * (blockIdx.y * blockDim.y + threadIdx.y);  // first of this thread's two rows
    if (i >= n || j >= n) return;

    size_t idx = (size_t)i * n + j;
    bool has_second = i + 1 < n;
    bool edge_col = j == 0 || j == n - 1;
    float c0 = A[idx];                          // centre of row i, "up" of row i+1
    float c1 = has_second ? A[idx + n] : 0.0f;  // centre of row i+1, "down" of row i

    if (i == 0 || i == n - 1 || edge_col) {
        B[idx] = c0;
    } else {
        B[idx] = 0.2f * (c0 + A[idx - 1] + A[idx + 1] + A[idx - n] + c1);
    }
    if (!has_second) return;
    size_t idx1 = idx + n;
    if (i + 1 == n - 1 || edge_col) {
        B[idx1] = c1;
    } else {
        B[idx1] = 0.2f * (c1 + A[idx1 - 1] + A[idx1 + 1] + c0 + A[idx1 + n]);
    }
}
