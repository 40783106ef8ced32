"""pyfakeheavy - baseline: every operation of every round a new tensor."""
import torch


def launch(args, params):
    x, y = args
    n, rounds = params
    v = x
    for _ in range(rounds):
        c = v * v * v
        v = v - 0.1 * c
    y.copy_(v)
