"""Adversarial, for pypoly_strict: the terms computed in helpers that
look like size arithmetic; the tensor reaches them by keyword, through
another helper, and through a global list a helper reads back. Wanted:
compile_error, "computes with a tensor" (only a helper handed sizes
alone may do arithmetic on its parameters)."""
import torch

_held = []


def _square(n=1, scale=1.0):
    return n * n * scale


def _outer(v):
    return _inner(v)


def _inner(u):
    return u + 1.0


def _held_back():
    return _held[0]


def launch(args, params):
    x, y = args
    _held.append(x)
    x2 = _square(n=x, scale=0.5)
    torch.mul(_outer(x2), 1.0, out=y)
    torch.mul(_held_back() * 2.0, 1.0, out=y)
