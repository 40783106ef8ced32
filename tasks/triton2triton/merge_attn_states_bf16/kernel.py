"""merge_attn_states_bf16 - baseline: vLLM's Triton merge_attn_states, one
program per (token, head) holding one head_dim vector (BLOCK = head_dim
rounded up to a power of two)."""
import torch
import triton
import triton.language as tl

NUM_WARPS = 1


@triton.jit
def _merge(out_ptr, out_lse_ptr, p_ptr, p_lse_ptr, s_ptr, s_lse_ptr,
           tokens, head_dim, BLOCK: tl.constexpr):
    t = tl.program_id(0)
    h = tl.program_id(1)
    num_heads = tl.num_programs(1)
    p_lse = tl.load(p_lse_ptr + h * tokens + t)
    s_lse = tl.load(s_lse_ptr + h * tokens + t)
    m = tl.maximum(p_lse, s_lse)
    p_se = tl.exp(p_lse - m)
    s_se = tl.exp(s_lse - m)
    tot = p_se + s_se
    tl.store(out_lse_ptr + h * tokens + t, tl.log(tot) + m)
    offs = tl.arange(0, BLOCK)
    mask = offs < head_dim
    base = (t * num_heads + h) * head_dim
    p = tl.load(p_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    s = tl.load(s_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
    o = p * (p_se / tot) + s * (s_se / tot)
    tl.store(out_ptr + base + offs, o.to(tl.bfloat16), mask=mask)


def launch(args, params):
    p_out, p_lse, s_out, s_lse, out, out_lse = args
    tokens, nh, d = params
    _merge[(tokens, nh)](out, out_lse, p_out, p_lse, s_out, s_lse, tokens, d,
                         BLOCK=triton.next_power_of_2(d), num_warps=NUM_WARPS)
