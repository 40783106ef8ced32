"""masked_mean_pool_bf16 - baseline: one program per (sequence, BLOCK_H
columns) walking the sequence token by token."""
import torch
import triton
import triton.language as tl


@triton.jit
def _mean_pool(x_ptr, m_ptr, o_ptr, seq, hidden, BLOCK_H: tl.constexpr):
    b = tl.program_id(0)
    offs = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    hm = offs < hidden
    acc = tl.zeros([BLOCK_H], dtype=tl.float32)
    cnt = 0.0
    for t in range(0, seq):
        mt = tl.load(m_ptr + b * seq + t).to(tl.float32)
        v = tl.load(x_ptr + (b.to(tl.int64) * seq + t) * hidden + offs, mask=hm, other=0.0)
        acc += v.to(tl.float32) * mt
        cnt += mt
    tl.store(o_ptr + b * hidden + offs, acc / tl.maximum(cnt, 1e-9), mask=hm)


def launch(args, params):
    x, mask, out = args
    batch, seq, hidden = params
    BLOCK_H = 256
    _mean_pool[(batch, triton.cdiv(hidden, BLOCK_H))](x, mask, out, seq, hidden,
                                                      BLOCK_H=BLOCK_H, num_warps=2)
