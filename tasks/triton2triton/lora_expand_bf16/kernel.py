"""lora_expand_bf16 - baseline: one program per (token, BLOCK_N output
columns): it loads the token's adapter index, its x row (BLOCK_R = rank
rounded up to a power of two) and the adapter's [BLOCK_N, rank] tile of B,
multiplies with a broadcast and a row sum in float32, and adds into y.  B
is read again for every token; tokens of the same adapter are never
batched into a tensor-core tile."""
import torch
import triton
import triton.language as tl

BLOCK_N = 128
NUM_WARPS = 4


@triton.jit
def _lora_expand(x_ptr, b_ptr, idx_ptr, y_ptr, rank, hidden,
                 BLOCK_N: tl.constexpr, BLOCK_R: tl.constexpr):
    t = tl.program_id(0)
    pid_n = tl.program_id(1)
    lo = tl.load(idx_ptr + t)
    offs_r = tl.arange(0, BLOCK_R)
    rmask = offs_r < rank
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    nmask = offs_n < hidden
    x = tl.load(x_ptr + t * rank + offs_r, mask=rmask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + (lo * hidden + offs_n[:, None]) * rank + offs_r[None, :],
                mask=nmask[:, None] & rmask[None, :], other=0.0).to(tl.float32)
    delta = tl.sum(b * x[None, :], axis=1)
    yp = y_ptr + t.to(tl.int64) * hidden + offs_n
    y = tl.load(yp, mask=nmask, other=0.0).to(tl.float32)
    tl.store(yp, (y + delta).to(tl.bfloat16), mask=nmask)


def launch(args, params):
    x, lora_b, lora_idx, y = args
    tokens, rank, hidden, num_loras = params
    grid = (tokens, triton.cdiv(hidden, BLOCK_N))
    _lora_expand[grid](x, lora_b, lora_idx, y, rank, hidden, BLOCK_N=BLOCK_N,
                       BLOCK_R=max(16, triton.next_power_of_2(rank)),
                       num_warps=NUM_WARPS)
