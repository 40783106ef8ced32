"""swiglu_bf16 - reference: in float32, rounded once to bf16."""
import torch


def launch(args, params):
    gate, up, y = args
    g = gate.float()
    y.copy_((g / (1.0 + torch.exp(-g)) * up.float()).to(torch.bfloat16))
