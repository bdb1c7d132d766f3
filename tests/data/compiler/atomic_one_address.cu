// Every thread adds its element to one float with atomicAdd: 2^24 atomics on one
// address of one L2 slice. nvcc cannot aggregate a float add (REDUX is integer
// only), so the SASS has one REDG.E.ADD.F32 per thread and no REDUX.
extern "C" __global__ void sum_one_address(const float* x, float* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(total, x[i]);
}
