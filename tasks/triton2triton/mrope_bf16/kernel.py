"""mrope_bf16 - baseline: one program per (token, head), q heads first and
then k heads; each loads the token's three positions, picks one per
frequency, gathers cos and sin from the cache and rotates the two halves of
its head in place.  Every head of a token reloads the same cos and sin."""
import torch
import triton
import triton.language as tl

NUM_WARPS = 1


@triton.jit
def _mrope(pos_ptr, cache_ptr, q_ptr, k_ptr, tokens, num_heads, num_kv_heads,
           head_dim, s_t, s_h, BLOCK_H: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1)
    half = head_dim // 2
    offs = tl.arange(0, BLOCK_H)
    mask = offs < half
    p0 = tl.load(pos_ptr + t)
    p1 = tl.load(pos_ptr + tokens + t)
    p2 = tl.load(pos_ptr + 2 * tokens + t)
    pos = tl.where(offs < s_t, p0, tl.where(offs < s_t + s_h, p1, p2))
    cos = tl.load(cache_ptr + pos * head_dim + offs, mask=mask, other=0.0)
    sin = tl.load(cache_ptr + pos * head_dim + half + offs, mask=mask, other=0.0)
    if h < num_heads:
        base = q_ptr + (t.to(tl.int64) * num_heads + h) * head_dim
    else:
        base = k_ptr + (t.to(tl.int64) * num_kv_heads + (h - num_heads)) * head_dim
    x1 = tl.load(base + offs, mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(base + half + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(base + offs, (x1 * cos - x2 * sin).to(tl.bfloat16), mask=mask)
    tl.store(base + half + offs, (x2 * cos + x1 * sin).to(tl.bfloat16), mask=mask)


def launch(args, params):
    positions, cache, q, k = args
    tokens, nh, nkv, d, max_pos, s_t, s_h, s_w = params
    _mrope[(tokens, nh + nkv)](positions, cache, q, k, tokens, nh, nkv, d,
                               s_t, s_h, BLOCK_H=triton.next_power_of_2(d // 2),
                               num_warps=NUM_WARPS)
