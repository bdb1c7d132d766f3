// A 32-bin histogram per thread indexed by the data: an array indexed at run time
// cannot live in registers, so ptxas puts it on the stack (128 bytes, 0 spill bytes)
// and every update is an LDL + STL. A local array, not a register spill.
extern "C" __global__ void local_histogram(const int* x, int* bins, int n) {
  int h[32];
  for (int k = 0; k < 32; ++k) h[k] = 0;
  int stride = gridDim.x * blockDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
    h[x[i] & 31] += 1;
  for (int k = 0; k < 32; ++k) atomicAdd(&bins[k], h[k]);
}
