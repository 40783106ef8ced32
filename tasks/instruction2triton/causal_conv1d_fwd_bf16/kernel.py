"""causal_conv1d_fwd_bf16 - write Mamba's causal depthwise convolution with
SiLU in Triton (README.md is the specification).

launch(args, params): args = [x, w, bias, out] (bf16 GPU tensors: x, out
[batch, dim, seqlen], w [dim, width], bias [dim]), params = [batch, dim,
seqlen, width]; write every element of out.  The rule of this task: no
library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("causal_conv1d_fwd_bf16: write the Triton kernel")
