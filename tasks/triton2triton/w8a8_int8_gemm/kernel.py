"""w8a8_int8_gemm - baseline: one program per BLOCK_M x BLOCK_N tile of c,
tiles in row-major order (no grouping for L2 reuse), tl.dot on int8 tiles
with an int32 accumulator, masked loads along every edge, the scales and
the bias applied in float32 in the epilogue."""
import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64
BLOCK_K = 64
NUM_WARPS = 4
NUM_STAGES = 1


@triton.jit
def _w8a8(a_ptr, w_ptr, as_ptr, ws_ptr, bias_ptr, c_ptr, m, n, k,
          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid = tl.program_id(0)
    num_n = tl.cdiv(n, BLOCK_N)
    pid_m = pid // num_n
    pid_n = pid % num_n
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    mmask = offs_m < m
    nmask = offs_n < n
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.int32)
    for k0 in range(0, k, BLOCK_K):
        kk = k0 + offs_k
        kmask = kk < k
        a = tl.load(a_ptr + offs_m[:, None] * k + kk[None, :],
                    mask=mmask[:, None] & kmask[None, :], other=0)
        b = tl.load(w_ptr + offs_n[None, :] * k + kk[:, None],
                    mask=kmask[:, None] & nmask[None, :], other=0)
        acc += tl.dot(a, b)
    a_s = tl.load(as_ptr + offs_m, mask=mmask, other=0.0)
    w_s = tl.load(ws_ptr + offs_n, mask=nmask, other=0.0)
    bias = tl.load(bias_ptr + offs_n, mask=nmask, other=0.0).to(tl.float32)
    c = acc.to(tl.float32) * a_s[:, None] * w_s[None, :] + bias[None, :]
    tl.store(c_ptr + offs_m[:, None] * n + offs_n[None, :], c.to(tl.bfloat16),
             mask=mmask[:, None] & nmask[None, :])


def launch(args, params):
    a, w, a_scale, w_scale, bias, c = args
    m, n, k = params
    grid = (triton.cdiv(m, BLOCK_M) * triton.cdiv(n, BLOCK_N),)
    _w8a8[grid](a, w, a_scale, w_scale, bias, c, m, n, k,
                BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                num_warps=NUM_WARPS, num_stages=NUM_STAGES)
