"""moe_fused_gemm_bf16 - reference: the slots of each expert gathered and
multiplied in float64, the routing weight applied in float64, one rounding
to bf16."""
import torch


def launch(args, params):
    x, w, topk_ids, topk_weights, out = args
    tokens, topk, hidden, inter, experts = params
    xs = x.reshape(tokens * topk, inter)
    ids = topk_ids.reshape(-1).long()
    wt = topk_weights.reshape(-1).double()
    res = torch.empty(tokens * topk, hidden, dtype=torch.float64, device=x.device)
    for e in range(experts):
        sel = (ids == e).nonzero().squeeze(1)
        if sel.numel():
            res[sel] = torch.matmul(xs[sel].double(), w[e].double().t()) * wt[sel, None]
    out.copy_(res.reshape(tokens, topk, hidden).float().to(torch.bfloat16))
