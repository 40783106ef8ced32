"""layernorm_fwd_bf16 - baseline: the Triton tutorial's _layer_norm_fwd_fused,
one program per row, three passes in chunks of BLOCK (sum for the mean, sum
of squared deviations for the variance, then normalise and store)."""
import torch
import triton
import triton.language as tl

BLOCK = 1024
NUM_WARPS = 4


@triton.jit
def _layernorm_fwd(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, cols, eps,
                   BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < cols, other=0.0).to(tl.float32)
        d = tl.where(offs < cols, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
    tl.store(mean_ptr + row, mean)
    tl.store(rstd_ptr + row, rstd)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < cols
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + offs, ((x - mean) * rstd * w + b).to(tl.bfloat16),
                 mask=mask)


def launch(args, params):
    x, w, b, y, mean, rstd = args
    rows, cols = params
    _layernorm_fwd[(rows,)](x, w, b, y, mean, rstd, cols, 1e-5, BLOCK=BLOCK,
                            num_warps=NUM_WARPS)
