"""pyfakeheavy - reference: the rounds in float64, rounded once."""
import torch


def launch(args, params):
    x, y = args
    n, rounds = params
    v = x.double()
    for _ in range(rounds):
        v = v - 0.1 * v * v * v
    y.copy_(v.float())
