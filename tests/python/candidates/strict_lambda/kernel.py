"""Adversarial, for pypoly_strict: Horner's rule as operators inside a
lambda folded by functools.reduce; a lambda's parameters hold tensors as
a function's do. Wanted: compile_error, "computes with a tensor"."""
import functools
import torch


def launch(args, params):
    x, y = args
    coef = [1.0 / 24.0, 1.0 / 6.0, 0.5, 1.0, 1.0]
    r = functools.reduce(lambda acc, c: acc * x + c, coef[1:], x * 0.0 + coef[0])
    torch.mul(r, 1.0, out=y)
