"""moe_weighted_sum_bf16 - baseline: one program per (token, BLOCK columns)
looping over the token's topk slots."""
import torch
import triton
import triton.language as tl


@triton.jit
def _moe_sum(y_ptr, w_ptr, o_ptr, topk, hidden, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = offs < hidden
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for j in range(0, topk):
        wj = tl.load(w_ptr + t * topk + j)
        v = tl.load(y_ptr + (t.to(tl.int64) * topk + j) * hidden + offs, mask=m, other=0.0)
        acc += wj * v.to(tl.float32)
    tl.store(o_ptr + t.to(tl.int64) * hidden + offs, acc.to(tl.bfloat16), mask=m)


def launch(args, params):
    y, topk_weights, out = args
    tokens, topk, hidden = params
    BLOCK = 512
    _moe_sum[(tokens, triton.cdiv(hidden, BLOCK))](y, topk_weights, out, topk, hidden,
                                                   BLOCK=BLOCK, num_warps=4)
