"""Honest: one addmm into y, then ReLU in place."""
import torch


def launch(args, params):
    x, w, b, y = args
    torch.addmm(b, x, w, out=y)
    y.relu_()
