"""paged_decode_attention_bf16 - baseline: one program per (sequence, query
head).  It walks the sequence one KV page at a time (BLOCK_N = block_size
rounded up to a power of two), computes the page's scores with a
broadcast-multiply and a row sum, and keeps an online softmax in float32.
Query heads that share a KV head each read it again, and a long sequence is
one program's serial loop."""
import torch
import triton
import triton.language as tl

NUM_WARPS = 4


@triton.jit
def _paged_decode(q_ptr, k_ptr, v_ptr, bt_ptr, sl_ptr, o_ptr,
                  num_heads, num_kv_heads, head_dim, block_size, max_blocks,
                  scale, BLOCK_N: tl.constexpr, BLOCK_D: tl.constexpr):
    b = tl.program_id(0)
    h = tl.program_id(1)
    kvh = h // (num_heads // num_kv_heads)
    seq_len = tl.load(sl_ptr + b)
    offs_d = tl.arange(0, BLOCK_D)
    dmask = offs_d < head_dim
    offs_n = tl.arange(0, BLOCK_N)
    q = tl.load(q_ptr + (b * num_heads + h) * head_dim + offs_d,
                mask=dmask, other=0.0).to(tl.float32)
    m_i = -float("inf")
    l_i = 0.0
    acc = tl.zeros([BLOCK_D], dtype=tl.float32)
    n_pages = tl.cdiv(seq_len, block_size)
    for j in range(0, n_pages):
        phys = tl.load(bt_ptr + b * max_blocks + j)
        t = j * block_size + offs_n
        nmask = (offs_n < block_size) & (t < seq_len)
        row = (phys * block_size + offs_n) * num_kv_heads + kvh
        kv_off = row[:, None] * head_dim + offs_d[None, :]
        m2 = nmask[:, None] & dmask[None, :]
        k = tl.load(k_ptr + kv_off, mask=m2, other=0.0).to(tl.float32)
        s = tl.sum(k * q[None, :], axis=1) * scale
        s = tl.where(nmask, s, -float("inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=0))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new)
        v = tl.load(v_ptr + kv_off, mask=m2, other=0.0).to(tl.float32)
        acc = acc * alpha + tl.sum(p[:, None] * v, axis=0)
        l_i = l_i * alpha + tl.sum(p, axis=0)
        m_i = m_new
    o = acc / l_i
    tl.store(o_ptr + (b * num_heads + h) * head_dim + offs_d,
             o.to(tl.bfloat16), mask=dmask)


def launch(args, params):
    q, k_cache, v_cache, block_tables, seq_lens, out = args
    batch, nh, nkv, d, bs, max_blocks, num_blocks = params
    _paged_decode[(batch, nh)](
        q, k_cache, v_cache, block_tables, seq_lens, out,
        nh, nkv, d, bs, max_blocks, 1.0 / (d ** 0.5),
        BLOCK_N=triton.next_power_of_2(bs), BLOCK_D=triton.next_power_of_2(d),
        num_warps=NUM_WARPS)
