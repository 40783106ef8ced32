"""w4a16_gptq_gemm - baseline: one program per (BLOCK_M = 16 rows of x,
BLOCK_N columns).  Each step over k gathers the packed word of every
(k, n) of a BLOCK_K x BLOCK_N tile (each word is loaded 8 times), shifts out
the nibble, loads the group scale per element, dequantises in float32,
rounds to float16 and calls tl.dot.  One row of x (a decode step) still
uses a 16-row tile, and k is walked serially by one program per column
tile (no split-K)."""
import torch
import triton
import triton.language as tl

BLOCK_N = 64
BLOCK_K = 64
NUM_WARPS = 4
NUM_STAGES = 1


@triton.jit
def _w4a16(x_ptr, qw_ptr, s_ptr, o_ptr, m, n, k, group,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mmask = offs_m < m
    nmask = offs_n < n
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, k, BLOCK_K):
        kk = k0 + offs_k
        kmask = kk < k
        x = tl.load(x_ptr + offs_m[:, None] * k + kk[None, :],
                    mask=mmask[:, None] & kmask[None, :], other=0.0)
        wmask = kmask[:, None] & nmask[None, :]
        packed = tl.load(qw_ptr + (kk // 8)[:, None] * n + offs_n[None, :],
                         mask=wmask, other=0)
        q = (packed >> ((kk % 8) * 4)[:, None]) & 15
        s = tl.load(s_ptr + (kk // group)[:, None] * n + offs_n[None, :],
                    mask=wmask, other=0.0).to(tl.float32)
        w = ((q - 8).to(tl.float32) * s).to(tl.float16)
        acc += tl.dot(x, w)
    tl.store(o_ptr + offs_m[:, None] * n + offs_n[None, :], acc.to(tl.float16),
             mask=mmask[:, None] & nmask[None, :])


def launch(args, params):
    x, qweight, scales, out = args
    m, n, k, group = params
    grid = (triton.cdiv(m, 16), triton.cdiv(n, BLOCK_N))
    _w4a16[grid](x, qweight, scales, out, m, n, k, group,
                 BLOCK_M=16, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                 num_warps=NUM_WARPS, num_stages=NUM_STAGES)
