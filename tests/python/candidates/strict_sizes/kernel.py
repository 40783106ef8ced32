"""Honest, for pypoly_strict: the baseline's Horner rule with the allowed
calls, plus what host code of a kernel does with sizes alone: builtins
and math on numbers, comprehensions over the arguments' sizes, math's
constants. Wanted: ok (the static check refuses none of it)."""
import math
import torch


def _chunks(n, block):
    return max(1, math.ceil(n / block))


def launch(args, params):
    x, y = args
    n = x.numel()
    total = sum(a.numel() for a in args)
    assert total == 2 * n and min(a.dim() for a in args) == 1
    assert abs(math.cos(math.pi)) == 1.0 and round(2.4) == 2
    sizes = sorted(a.numel() for a in args)
    for lo in range(0, n, sizes[0] // _chunks(n, 1 << 20) or 1):
        hi = min(n, lo + (1 << 20))
        xs, ys = x.narrow(0, lo, hi - lo), y.narrow(0, lo, hi - lo)
        torch.mul(xs, 1.0 / 24.0, out=ys)
        ys.add_(1.0 / 6.0).mul_(xs)
        ys.add_(0.5).mul_(xs)
        ys.add_(1.0).mul_(xs)
        ys.add_(1.0)
