"""topk_softmax_gating - reference: softmax in float64; experts ordered by
logit with a stable sort (equal logits keep the lower index first), the
selected probabilities renormalised in float64."""
import torch


def launch(args, params):
    gating, topk_weights, topk_ids = args
    tokens, experts, topk = params
    x = gating.double()
    p = torch.softmax(x, dim=1)
    ids = torch.sort(x, dim=1, descending=True, stable=True).indices[:, :topk]
    w = p.gather(1, ids)
    topk_weights.copy_((w / w.sum(dim=1, keepdim=True)).float())
    topk_ids.copy_(ids.to(torch.int32))
