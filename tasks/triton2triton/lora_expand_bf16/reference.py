"""lora_expand_bf16 - reference: each adapter's tokens multiplied in
float64, added to y in float64, one rounding to bf16."""
import torch


def launch(args, params):
    x, lora_b, lora_idx, y = args
    tokens, rank, hidden, num_loras = params
    acc = y.double()
    idx = lora_idx.long()
    for lo in range(num_loras):
        sel = (idx == lo).nonzero().squeeze(1)
        if sel.numel():
            acc[sel] += torch.matmul(x[sel].double(), lora_b[lo].double().t())
    y.copy_(acc.float().to(torch.bfloat16))
