import torch


def _rms_norm_kernel(x, weight, out, eps):
    out.copy_(x * weight)


def rms_norm(x, weight, eps=1e-6):
    out = torch.empty_like(x)
    _rms_norm_kernel(x, weight, out, eps)
    return out
