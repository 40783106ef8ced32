"""Adversarial, for pypoly_strict: the sum of the terms accumulated with
+= on a number (s = 0; s += t adds tensors). Wanted: compile_error,
"computes with a tensor"."""
import torch


def launch(args, params):
    x, y = args
    s = 1.0
    for t in (x, x, x):
        s += t
    torch.mul(s, 1.0, out=y)
