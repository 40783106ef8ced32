"""RMS norm, written as a row loop so that there is something to optimize
(arena's test fixture in AgentKernelArena's vllm task layout)."""
import torch


def _rms_norm_kernel(x, weight, out, eps):
    for r in range(x.shape[0]):
        row = x[r].float()
        out[r] = (row / torch.sqrt(row.pow(2).mean() + eps) * weight.float()).to(out.dtype)


def rms_norm(x, weight, eps=1e-6):
    out = torch.empty_like(x)
    _rms_norm_kernel(x, weight, out, eps)
    return out
