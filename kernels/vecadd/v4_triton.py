"""Vector addition in Triton: one program per 1024-element block, masked at the tail.

A Python launcher (nsightflow.family.pylauncher): prepare(args) wraps nsightflow's
buffers as torch tensors through the CUDA array interface (no copy) and returns the
call that launches the Triton kernel on them.
"""

import torch
import triton
import triton.language as tl

BLOCK = 1024  # elements per program; 4 warps (Triton's default) x 8 floats per thread


@triton.jit
def vecadd_triton(a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    a = tl.load(a_ptr + offsets, mask=mask)
    b = tl.load(b_ptr + offsets, mask=mask)
    tl.store(c_ptr + offsets, a + b, mask=mask)


def prepare(args):
    a, b, c = (torch.as_tensor(args[name], device="cuda") for name in "ABC")
    n = args["n"]
    grid = (triton.cdiv(n, BLOCK),)

    def launch():
        vecadd_triton[grid](a, b, c, n, BLOCK=BLOCK)

    return launch
