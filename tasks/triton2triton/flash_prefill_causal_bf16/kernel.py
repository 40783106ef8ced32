"""flash_prefill_causal_bf16 - baseline: FlashAttention-2's forward in
Triton.  One program per (BLOCK_M queries, batch x head); it walks the keys
up to the causal bound in tiles of BLOCK_N with tl.dot for Q.K^T and P.V and
an online softmax in float32 (P rounded to bf16 for the second product).
The causal mask is applied on every tile, not only the diagonal ones, exp is
not exp2, and the tiles and stages are small."""
import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 32
NUM_WARPS = 4
NUM_STAGES = 1


@triton.jit
def _flash_fwd(q_ptr, k_ptr, v_ptr, o_ptr, seq, num_heads, num_kv_heads,
               head_dim, scale, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
               BLOCK_D: tl.constexpr):
    pid_m = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // num_heads
    h = bh % num_heads
    kvh = h // (num_heads // num_kv_heads)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    dmask = offs_d < head_dim
    mmask = offs_m < seq
    q_off = ((b * seq + offs_m[:, None]) * num_heads + h) * head_dim + offs_d[None, :]
    q = tl.load(q_ptr + q_off, mask=mmask[:, None] & dmask[None, :], other=0.0)
    m_i = tl.full([BLOCK_M], -float("inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    hi = tl.minimum(seq, (pid_m + 1) * BLOCK_M)
    for start_n in range(0, hi, BLOCK_N):
        n = start_n + offs_n
        nmask = n < seq
        kv_off = ((b * seq + n[:, None]) * num_kv_heads + kvh) * head_dim + offs_d[None, :]
        kv_mask = nmask[:, None] & dmask[None, :]
        k = tl.load(k_ptr + kv_off, mask=kv_mask, other=0.0)
        s = tl.dot(q, tl.trans(k)) * scale
        keep = (offs_m[:, None] >= n[None, :]) & nmask[None, :]
        s = tl.where(keep, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, axis=1)
        v = tl.load(v_ptr + kv_off, mask=kv_mask, other=0.0)
        acc = acc * alpha[:, None] + tl.dot(p.to(tl.bfloat16), v)
        m_i = m_new
    o = acc / l_i[:, None]
    o_off = ((b * seq + offs_m[:, None]) * num_heads + h) * head_dim + offs_d[None, :]
    tl.store(o_ptr + o_off, o.to(tl.bfloat16), mask=mmask[:, None] & dmask[None, :])


def launch(args, params):
    q, k, v, out = args
    batch, seq, nh, nkv, d = params
    grid = (triton.cdiv(seq, BLOCK_M), batch * nh)
    _flash_fwd[grid](q, k, v, out, seq, nh, nkv, d, 1.0 / (d ** 0.5),
                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                     BLOCK_D=max(16, triton.next_power_of_2(d)),
                     num_warps=NUM_WARPS, num_stages=NUM_STAGES)
