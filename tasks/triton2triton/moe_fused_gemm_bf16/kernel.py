"""moe_fused_gemm_bf16 - baseline: one program per (tile of BLOCK_M slots,
tile of BLOCK_N output columns, expert).  Each program multiplies its slots
by its expert's weight with tl.dot, the rows of slots routed elsewhere
masked to zero, and stores only its own expert's rows, so every slot is
written once and the tensor cores do `experts` times the needed work.
vLLM sorts and pads the slots by expert first (moe_align_block_size) so
that each tile belongs to one expert."""
import torch
import triton
import triton.language as tl

BLOCK_M = 64
BLOCK_N = 64
BLOCK_K = 32
NUM_WARPS = 4
NUM_STAGES = 1


@triton.jit
def _moe_gemm(x_ptr, w_ptr, ids_ptr, wt_ptr, o_ptr, slots, hidden, inter,
              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    e = tl.program_id(2)
    offs_s = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    smask = offs_s < slots
    nmask = offs_n < hidden
    ids = tl.load(ids_ptr + offs_s, mask=smask, other=-1)
    sel = smask & (ids == e)
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for k0 in range(0, inter, BLOCK_K):
        kk = k0 + offs_k
        kmask = kk < inter
        a = tl.load(x_ptr + offs_s[:, None] * inter + kk[None, :],
                    mask=sel[:, None] & kmask[None, :], other=0.0)
        b = tl.load(w_ptr + (e * hidden + offs_n[None, :]) * inter + kk[:, None],
                    mask=kmask[:, None] & nmask[None, :], other=0.0)
        acc += tl.dot(a, b)
    wt = tl.load(wt_ptr + offs_s, mask=sel, other=0.0)
    acc = acc * wt[:, None]
    tl.store(o_ptr + offs_s[:, None] * hidden + offs_n[None, :],
             acc.to(tl.bfloat16), mask=sel[:, None] & nmask[None, :])


def launch(args, params):
    x, w, topk_ids, topk_weights, out = args
    tokens, topk, hidden, inter, experts = params
    slots = tokens * topk
    grid = (triton.cdiv(slots, BLOCK_M), triton.cdiv(hidden, BLOCK_N), experts)
    _moe_gemm[grid](x, w, topk_ids, topk_weights, out, slots, hidden, inter,
                    BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                    num_warps=NUM_WARPS, num_stages=NUM_STAGES)
