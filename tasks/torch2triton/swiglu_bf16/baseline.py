"""swiglu_bf16 - baseline: PyTorch, as vLLM's SiluAndMul.forward_native
computes it (F.silu in bf16, then a bf16 multiply)."""
import torch
import torch.nn.functional as F


def launch(args, params):
    gate, up, y = args
    torch.mul(F.silu(gate), up, out=y)
