"""cross_entropy_fwd_bwd_bf16 - baseline: one program per row, three passes
over the row in chunks of BLOCK: the maximum, the sum of exponentials, then
the gradient (softmax minus the one-hot target, over rows)."""
import torch
import triton
import triton.language as tl

BLOCK = 4096
NUM_WARPS = 8


@triton.jit
def _ce_fwd_bwd(x_ptr, t_ptr, loss_ptr, g_ptr, vocab, inv_rows,
                BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * vocab
    offs0 = tl.arange(0, BLOCK)
    m = -float("inf")
    for start in range(0, vocab, BLOCK):
        offs = start + offs0
        x = tl.load(x_ptr + base + offs, mask=offs < vocab,
                    other=-float("inf")).to(tl.float32)
        m = tl.maximum(m, tl.max(x, axis=0))
    s = 0.0
    for start in range(0, vocab, BLOCK):
        offs = start + offs0
        x = tl.load(x_ptr + base + offs, mask=offs < vocab,
                    other=-float("inf")).to(tl.float32)
        s += tl.sum(tl.exp(x - m), axis=0)
    lse = m + tl.log(s)
    t = tl.load(t_ptr + row)
    xt = tl.load(x_ptr + base + t).to(tl.float32)
    tl.store(loss_ptr + row, lse - xt)
    for start in range(0, vocab, BLOCK):
        offs = start + offs0
        mask = offs < vocab
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        g = tl.exp(x - lse)
        g = tl.where(offs == t, g - 1.0, g) * inv_rows
        tl.store(g_ptr + base + offs, g.to(tl.bfloat16), mask=mask)


def launch(args, params):
    logits, target, loss, grad = args
    rows, vocab = params
    _ce_fwd_bwd[(rows,)](logits, target, loss, grad, vocab, 1.0 / rows,
                         BLOCK=BLOCK, num_warps=NUM_WARPS)
