"""mrope_bf16 - reference: cos and sin gathered per frequency from the
section's position, the rotation in float64, one rounding to bf16."""
import torch


def launch(args, params):
    positions, cache, q, k = args
    tokens, nh, nkv, d, max_pos, s_t, s_h, s_w = params
    half = d // 2
    dev = q.device
    sec = torch.tensor([0] * s_t + [1] * s_h + [2] * s_w, device=dev)
    pos = positions.long()[sec].t()                       # [tokens, half]
    i = torch.arange(half, device=dev)[None, :]
    cos = cache.double()[pos, i][:, None, :]              # [tokens, 1, half]
    sin = cache.double()[pos, half + i][:, None, :]
    for x in (q, k):
        xf = x.double()
        x1, x2 = xf[..., :half], xf[..., half:]
        o = torch.cat([x1 * cos - x2 * sin, x2 * cos + x1 * sin], dim=-1)
        x.copy_(o.float().to(torch.bfloat16))
