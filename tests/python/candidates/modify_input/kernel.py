"""Computes y correctly but scribbles on x: rejected."""
import torch


def launch(args, params):
    x, y = args
    torch.mul(x, 1.0 / 24.0, out=y)
    y.add_(1.0 / 6.0).mul_(x)
    y.add_(0.5).mul_(x)
    y.add_(1.0).mul_(x)
    y.add_(1.0)
    x[0] = 0.0
