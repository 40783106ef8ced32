"""linear_bias_gelu_bf16 - baseline: the PyTorch MLP's first half, as BERT,
ViT and GPT-NeoX run it in bf16 (nn.Linear then nn.GELU())."""
import torch
import torch.nn.functional as F


def launch(args, params):
    x, w, b, y = args
    y.copy_(F.gelu(F.linear(x, w, b)))
