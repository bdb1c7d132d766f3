// v0_local_window: y[i] = x[i] + ... + x[i + 15], the window in a private array.
// Idea: the baseline. The 16 inputs are copied into w[16] and summed starting at a
// rotation known only at run time (i % 16): an array indexed by a run-time value cannot
// live in registers, so the compiler puts it in local memory, and every tap is a local
// store and a local load through L1 on top of the global load.

#define TAPS 16

extern "C" __global__ void window_v0(const float* __restrict__ x, float* __restrict__ y,
                                     int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float w[TAPS];
    for (int k = 0; k < TAPS; ++k) w[k] = i + k < n ? x[i + k] : 0.0f;
    float s = 0.0f;
    int r = i % TAPS;
    for (int k = 0; k < TAPS; ++k) s += w[(r + k) % TAPS];
    y[i] = s;
}
