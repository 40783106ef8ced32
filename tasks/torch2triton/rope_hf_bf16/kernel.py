"""rope_hf_bf16 - write q_out, k_out = apply_rotary_pos_emb(q, k, cos, sin)
as Triton kernels (README.md shows the PyTorch code you are timed against).

launch(args, params): args = [q, k, cos, sin, q_out, k_out] (bf16 tensors
on the GPU, contiguous, shapes in TASK.md), params = [batch, seq,
num_heads, num_kv_heads, head_dim]; write every element of q_out and k_out.
The rule of this task: no library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("rope_hf_bf16: write the Triton kernel")
