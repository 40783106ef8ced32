"""Adversarial, for pypoly_strict: builtins, math functions and torch
kernels named as values and called out of the check's sight (through
map, functools.reduce, an index of a list). Wanted: compile_error,
"as a value"."""
import functools
import math
import torch


def launch(args, params):
    x, y = args
    x2 = functools.reduce(pow, [x, 2])
    x4 = [torch.square][0](x2)
    p = list(map(math.prod, [[x2, x2, 1.0 / 24.0]]))[0]
    torch.mul(functools.reduce(torch.add, [x4, p, x]), 1.0, out=y)
