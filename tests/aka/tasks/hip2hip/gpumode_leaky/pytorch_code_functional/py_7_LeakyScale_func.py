"""arena's gpumode fixture: the functional twin, whose `fn` is the
kernel."""
import torch
import torch.nn as nn
import torch.nn.functional as F


def module_fn(x: torch.Tensor, scale: torch.Tensor, slope: float) -> torch.Tensor:
    return F.leaky_relu(x * scale, slope)


class LeakyScale(nn.Module):

    def __init__(self, channels, slope=0.1):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(channels))
        self.slope = slope

    def forward(self, x, fn=module_fn):
        return fn(x, self.scale, self.slope)


def get_inputs():
    for rows in (64, 256, 1024):
        yield [torch.randn(rows, 256, dtype=torch.float32)]


def get_init_inputs():
    return [[], {"channels": 256, "slope": 0.1}]
