"""flash_prefill_causal_bf16 - reference: scores, softmax and P.V in
float64, one KV head group at a time, one rounding to bf16."""
import math

import torch


def launch(args, params):
    q, k, v, out = args
    batch, seq, nh, nkv, d = params
    g = nh // nkv
    scale = 1.0 / math.sqrt(d)
    masked = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
    for b in range(batch):
        for kh in range(nkv):
            qq = q[b, :, kh * g:(kh + 1) * g, :].double().permute(1, 0, 2)
            kk = k[b, :, kh, :].double()
            vv = v[b, :, kh, :].double()
            s = torch.matmul(qq, kk.t()) * scale
            s = s.masked_fill(masked, float("-inf"))
            o = torch.matmul(torch.softmax(s, dim=-1), vv)
            out[b, :, kh * g:(kh + 1) * g, :] = (
                o.permute(1, 0, 2).float().to(torch.bfloat16))
