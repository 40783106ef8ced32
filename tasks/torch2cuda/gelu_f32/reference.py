"""gelu_f32 - reference: PyTorch on the GPU, in float64, rounded once."""
import math

import torch


def launch(args, params):
    x, y = args
    d = x.double()
    c = math.sqrt(2.0 / math.pi)
    y.copy_((0.5 * d * (1.0 + torch.tanh(c * (d + 0.044715 * d ** 3)))).float())
