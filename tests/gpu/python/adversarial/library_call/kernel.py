"""Returns the reference's result by calling PyTorch itself (the same
computation as the task's reference): on triton2triton/rmsnorm_bf16, which
forbids library calls, the static check refuses it before it runs."""
import torch


def launch(args, params):
    x, w, y = args
    xf = x.float()
    r = torch.rsqrt(xf.pow(2).mean(dim=1, keepdim=True) + 1e-6)
    y.copy_((xf * r * w.float()).to(torch.bfloat16))
