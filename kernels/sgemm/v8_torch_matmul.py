"""SGEMM through PyTorch: torch.matmul in FP32 with TF32 off, i.e. cuBLAS's SGEMM.

A Python launcher (nsightflow.family.pylauncher): the vendor library as a variant of
the ladder, timed, profiled and verified like the hand-written kernels. TF32 is
switched off so every multiply-add is a full FP32 FMA (TF32 keeps 10 mantissa bits:
its relative error here would be ~1e-3, far above the family's 1e-5 tolerance).
"""

import torch


def prepare(args):
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    a, b, c = (torch.as_tensor(args[name], device="cuda") for name in "ABC")

    def launch():
        torch.matmul(a, b, out=c)

    return launch
