"""causal_conv1d_fwd_bf16 - baseline: one program per (sequence x channel,
BLOCK time steps); for each tap it reloads the shifted window of x (from
cache after the first) and the tap's weight."""
import torch
import triton
import triton.language as tl


@triton.jit
def _conv(x_ptr, w_ptr, b_ptr, o_ptr, dim, seqlen, width, BLOCK: tl.constexpr):
    bc = tl.program_id(0)
    c = bc % dim
    t = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    base = bc.to(tl.int64) * seqlen
    acc = tl.zeros([BLOCK], dtype=tl.float32) + tl.load(b_ptr + c).to(tl.float32)
    for i in range(0, width):
        src = t - width + 1 + i
        xv = tl.load(x_ptr + base + src, mask=(src >= 0) & (src < seqlen),
                     other=0.0).to(tl.float32)
        acc += tl.load(w_ptr + c * width + i).to(tl.float32) * xv
    y = acc * tl.sigmoid(acc)
    tl.store(o_ptr + base + t, y.to(tl.bfloat16), mask=t < seqlen)


def launch(args, params):
    x, w, bias, out = args
    batch, dim, seqlen, width = params
    BLOCK = 256
    _conv[(batch * dim, triton.cdiv(seqlen, BLOCK))](x, w, bias, out, dim, seqlen,
                                                     width, BLOCK=BLOCK, num_warps=2)
