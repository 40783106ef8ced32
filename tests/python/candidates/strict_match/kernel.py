"""Adversarial, for pypoly_strict: a tensor bound to a new name by a
match statement's capture pattern, then an operator on it. Wanted:
compile_error, "computes with a tensor"."""
import torch


def launch(args, params):
    x, y = args
    match x:
        case z:
            torch.mul(z * z, 0.5, out=y)
