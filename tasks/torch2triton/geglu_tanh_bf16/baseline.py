"""geglu_tanh_bf16 - baseline: vLLM's GeluAndMul.forward_native with
approximate="tanh", in bf16."""
import torch
import torch.nn.functional as F


def launch(args, params):
    x, y = args
    d = x.shape[-1] // 2
    y.copy_(F.gelu(x[..., :d], approximate="tanh") * x[..., d:])
