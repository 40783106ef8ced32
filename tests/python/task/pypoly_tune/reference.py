"""pypoly - reference: the polynomial in float64, rounded once."""
import torch


def launch(args, params):
    x, y = args
    d = x.double()
    y.copy_((1.0 + d + d * d / 2.0 + d * d * d / 6.0 + d * d * d * d / 24.0).float())
