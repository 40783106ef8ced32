"""topk_softmax_gating - baseline: one program per token holding its row of
logits (BLOCK_E = experts rounded up to a power of two): softmax, then
topk rounds of argmax (ties to the lower index), each winner's rank
recorded, and one scattered store of the renormalised weights and ids."""
import torch
import triton
import triton.language as tl

NUM_WARPS = 1


@triton.jit
def _topk_softmax(g_ptr, w_ptr, id_ptr, experts, topk, BLOCK_E: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK_E)
    mask = offs < experts
    x = tl.load(g_ptr + t * experts + offs, mask=mask,
                other=-float("inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    p = tl.exp(x - m)
    p = p / tl.sum(p, axis=0)
    cand = tl.where(mask, p, -1.0)
    rank = tl.full([BLOCK_E], -1, tl.int32)
    for j in range(0, topk):
        idx = tl.argmax(cand, axis=0)
        rank = tl.where(offs == idx, j, rank)
        cand = tl.where(offs == idx, -1.0, cand)
    sel = rank >= 0
    total = tl.sum(tl.where(sel, p, 0.0), axis=0)
    dst = t * topk + rank
    tl.store(w_ptr + dst, p / total, mask=sel)
    tl.store(id_ptr + dst, offs, mask=sel)


def launch(args, params):
    gating, topk_weights, topk_ids = args
    tokens, experts, topk = params
    _topk_softmax[(tokens,)](gating, topk_weights, topk_ids, experts, topk,
                             BLOCK_E=triton.next_power_of_2(experts),
                             num_warps=NUM_WARPS)
