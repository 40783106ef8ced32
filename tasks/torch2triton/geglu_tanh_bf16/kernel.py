"""geglu_tanh_bf16 - write y = gelu_tanh(x[:, :d]) * x[:, d:] as one Triton
kernel (README.md shows the PyTorch code you are timed against).

launch(args, params): args = [x, y] (bf16 tensors on the GPU, x [rows, 2*d],
y [rows, d], contiguous), params = [rows, d]; write every element of y.
Triton has no tanh in triton.language: build it from tl.exp or
tl.sigmoid (tanh(a) = 2 * sigmoid(2a) - 1).  The rule of this task: no
library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("geglu_tanh_bf16: write the Triton kernel")
