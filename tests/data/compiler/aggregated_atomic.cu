// Every thread adds its integer to one counter with atomicAdd. The address is the
// same for the whole warp, so nvcc sums the warp first (REDUX.SUM) and one elected
// lane issues the RED: one atomic per warp, without a shuffle in the source.
extern "C" __global__ void count_one_address(const int* x, int* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}
