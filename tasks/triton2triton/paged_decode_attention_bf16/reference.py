"""paged_decode_attention_bf16 - reference: each sequence's keys and values
gathered from its blocks, attention in float64, one rounding to bf16."""
import math

import torch


def launch(args, params):
    q, k_cache, v_cache, block_tables, seq_lens, out = args
    batch, nh, nkv, d, bs, max_blocks, num_blocks = params
    g = nh // nkv
    scale = 1.0 / math.sqrt(d)
    lens = seq_lens.tolist()
    for b in range(batch):
        n = lens[b]
        nblk = (n + bs - 1) // bs
        blocks = block_tables[b, :nblk].long()
        k = k_cache[blocks].reshape(nblk * bs, nkv, d)[:n].double()
        v = v_cache[blocks].reshape(nblk * bs, nkv, d)[:n].double()
        qb = q[b].double().reshape(nkv, g, d)
        s = torch.einsum("kgd,lkd->kgl", qb, k) * scale
        p = torch.softmax(s, dim=-1)
        o = torch.einsum("kgl,lkd->kgd", p, v)
        out[b].copy_(o.reshape(nh, d).float().to(torch.bfloat16))
