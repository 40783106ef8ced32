# Writes into its input: scales x in place, then normalises.
import torch


def _rms_norm_kernel(x, weight, out, eps):
    x.mul_(1.0)
    x[0, 0] = 0.0
    xf = x.float()
    out.copy_(xf * torch.rsqrt(xf.pow(2).mean(dim=-1, keepdim=True) + eps) * weight)


def rms_norm(x, weight, eps=1e-6):
    out = torch.empty_like(x)
    _rms_norm_kernel(x, weight, out, eps)
    return out
