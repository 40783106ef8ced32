"""Honest: PyTorch's fused softmax."""
import torch


def launch(args, params):
    x, y = args
    y.copy_(torch.softmax(x, dim=1))
