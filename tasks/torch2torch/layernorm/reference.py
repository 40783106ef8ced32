"""layernorm - reference: in float64, rounded once."""
import torch


def launch(args, params):
    x, w, b, y = args
    d = x.double()
    mean = d.mean(dim=1, keepdim=True)
    var = ((d - mean) ** 2).mean(dim=1, keepdim=True)
    y.copy_(((d - mean) / torch.sqrt(var + 1e-5) * w.double() + b.double()).float())
