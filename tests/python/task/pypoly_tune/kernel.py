"""pypoly_tune - baseline: the polynomial plainly (HORNER = 0), or by
Horner's rule in place in y (HORNER = 1, which the autotune agent finds)."""
import torch

HORNER = 0


def launch(args, params):
    x, y = args
    if HORNER:
        torch.mul(x, 1.0 / 24.0, out=y)
        y.add_(1.0 / 6.0).mul_(x)
        y.add_(0.5).mul_(x)
        y.add_(1.0).mul_(x)
        y.add_(1.0)
        return
    x2 = x * x
    y.copy_(1.0 + x + x2 / 2.0 + x2 * x / 6.0 + x2 * x2 / 24.0)
