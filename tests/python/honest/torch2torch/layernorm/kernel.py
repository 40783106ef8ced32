"""Honest: PyTorch's fused layer_norm."""
import torch
import torch.nn.functional as F


def launch(args, params):
    x, w, b, y = args
    y.copy_(F.layer_norm(x, (x.shape[1],), w, b, 1e-5))
