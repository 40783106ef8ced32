"""pypoly_strict - baseline: Horner's rule with the calls the task allows."""
import torch


def launch(args, params):
    x, y = args
    torch.mul(x, 1.0 / 24.0, out=y)
    y.add_(1.0 / 6.0).mul_(x)
    y.add_(0.5).mul_(x)
    y.add_(1.0).mul_(x)
    y.add_(1.0)
