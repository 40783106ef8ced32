"""moe_weighted_sum_bf16 - write the MoE combine step in Triton (README.md is
the specification).

launch(args, params): args = [y, topk_weights, out] (GPU tensors: bf16 y
[tokens, topk, hidden], float32 topk_weights [tokens, topk], bf16 out
[tokens, hidden]), params = [tokens, topk, hidden]; write every element of
out.  The rule of this task: no library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("moe_weighted_sum_bf16: write the Triton kernel")
