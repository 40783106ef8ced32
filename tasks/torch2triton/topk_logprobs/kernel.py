"""topk_logprobs - write the sampler's logprobs step as Triton kernels
(README.md shows the PyTorch code you are timed against).

launch(args, params): args = [logits, token, topk_logprobs, token_logprob,
token_rank] (GPU tensors, shapes in TASK.md), params = [rows, vocab, k];
write every element of the three outputs.  The rule of this task: no
library kernels (see TASK.md).
"""
import torch
import triton
import triton.language as tl


def launch(args, params):
    raise NotImplementedError("topk_logprobs: write the Triton kernel")
