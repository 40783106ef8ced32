"""swiglu_bf16 - write y = silu(gate) * up as a Triton kernel.

launch(args, params): args = [gate, up, y] (bf16 tensors on the GPU,
contiguous [rows, hidden]), params = [rows, hidden]; write every element of
y.  The rule of this task: no library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl

BLOCK = 1024
NUM_WARPS = 4


def launch(args, params):
    raise NotImplementedError("swiglu_bf16: write the Triton kernel")
