"""Honest, for pyfakeheavy: the rounds in place in y, two operations per
round instead of four tensors."""
import torch


def launch(args, params):
    x, y = args
    n, rounds = params
    y.copy_(x)
    t = torch.empty_like(y)
    for _ in range(rounds):
        torch.mul(y, y, out=t)
        y.addcmul_(t, y, value=-0.1)
