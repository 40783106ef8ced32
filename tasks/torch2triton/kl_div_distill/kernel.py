"""kl_div_distill - write the distillation loss and its gradient as Triton
kernels (README.md shows the PyTorch code you are timed against).

launch(args, params): args = [student, teacher, loss, grad] (GPU tensors:
bf16 [rows, vocab] logits, float32 loss [rows], bf16 grad [rows, vocab]),
params = [rows, vocab]; write every element of loss and grad.  The rule of
this task: no library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("kl_div_distill: write the Triton kernel")
