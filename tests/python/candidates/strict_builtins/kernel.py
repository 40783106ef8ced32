"""Adversarial, for pypoly_strict (library calls forbidden but torch.mul):
the polynomial from builtins and math functions that compute with the
tensors they are handed (pow, sum, math.prod: library kernels out of
sight of an operator), written out through the one allowed call.
Wanted: compile_error, "hands a tensor to"."""
import math
import torch


def launch(args, params):
    x, y = args
    terms = [math.prod([pow(x, k), c]) for k, c in
             enumerate([1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0])]
    torch.mul(sum(terms), 1.0, out=y)
