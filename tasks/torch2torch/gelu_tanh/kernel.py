"""gelu_tanh - baseline: the formula as written, one temporary tensor per
operation."""
import math

import torch


def launch(args, params):
    x, y = args
    c = math.sqrt(2.0 / math.pi)
    inner = c * (x + 0.044715 * x * x * x)
    y.copy_(0.5 * x * (1.0 + torch.tanh(inner)))
