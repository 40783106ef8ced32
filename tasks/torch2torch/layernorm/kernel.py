"""layernorm - baseline: mean and variance as separate reductions, every
step a temporary."""
import torch


def launch(args, params):
    x, w, b, y = args
    mean = x.mean(dim=1, keepdim=True)
    centered = x - mean
    var = (centered * centered).mean(dim=1, keepdim=True)
    y.copy_(centered / torch.sqrt(var + 1e-5) * w + b)
