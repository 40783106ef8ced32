"""Adversarial, for pypoly_strict: a table lookup by tensor index (a
gather kernel of the library) in place of computing, and a gather by a
list of indices. Wanted:
compile_error, "indexes with a tensor"."""
import torch


def launch(args, params):
    x, y = args
    looked_up = x[y.view(-1)]
    torch.mul(looked_up, 1.0, out=y)
    torch.mul(x[[2, 1, 0]], 1.0, out=y.narrow(0, 0, 3))
