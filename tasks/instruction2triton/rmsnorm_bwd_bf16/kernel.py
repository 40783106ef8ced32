"""rmsnorm_bwd_bf16 - write RMSNorm's backward pass in Triton (README.md is
the specification).

launch(args, params): args = [dy, x, w, rstd, dx, dw] (GPU tensors: bf16
dy, x, dx [rows, cols]; bf16 w [cols]; float32 rstd [rows]; float32 dw
[cols]), params = [rows, cols]; write every element of dx and dw.  The rule
of this task: no library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("rmsnorm_bwd_bf16: write the Triton kernels")
