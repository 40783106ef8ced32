"""layernorm_bwd_bf16 - write LayerNorm's backward pass in Triton (README.md
is the specification).

launch(args, params): args = [dy, x, w, mean, rstd, dx, dw, db] (GPU
tensors: bf16 dy, x, dx [rows, cols]; bf16 w [cols]; float32 mean, rstd
[rows]; float32 dw, db [cols]), params = [rows, cols]; write every element
of dx, dw and db.  The rule of this task: no library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("layernorm_bwd_bf16: write the Triton kernels")
