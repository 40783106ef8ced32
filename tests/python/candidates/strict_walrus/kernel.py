"""Adversarial, for pypoly_strict: a tensor renamed by an assignment
expression (z := x), then an operator on the new name. Wanted:
compile_error, "computes with a tensor"."""
import torch


def launch(args, params):
    x, y = args
    if (z := x) is not None:
        torch.mul(z * z, 0.5, out=y)
