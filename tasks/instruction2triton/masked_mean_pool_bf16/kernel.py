"""masked_mean_pool_bf16 - write masked mean pooling in Triton (README.md is
the specification).

launch(args, params): args = [x, mask, out] (GPU tensors: bf16 x [batch,
seq, hidden], u8 mask [batch, seq], float32 out [batch, hidden]), params =
[batch, seq, hidden]; write every element of out.  The rule of this task:
no library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("masked_mean_pool_bf16: write the Triton kernel")
