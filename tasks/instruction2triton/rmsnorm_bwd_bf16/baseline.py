"""rmsnorm_bwd_bf16 - baseline: two Triton kernels.  dx: one program per
row, two passes (the row's sum of g*x, then dx).  dw: one program per
BLOCK_C columns walking every row (dy and x are read a third time)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm_bwd_dx(dy_ptr, x_ptr, w_ptr, r_ptr, dx_ptr, cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * cols
    rstd = tl.load(r_ptr + row)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        dy = tl.load(dy_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
        acc += dy * w * x
    c = tl.sum(acc, axis=0) / cols
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        dy = tl.load(dy_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
        dx = rstd * (dy * w - x * rstd * rstd * c)
        tl.store(dx_ptr + base + offs, dx.to(tl.bfloat16), mask=m)


@triton.jit
def _rmsnorm_bwd_dw(dy_ptr, x_ptr, r_ptr, dw_ptr, rows, cols, BLOCK_C: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    m = offs < cols
    acc = tl.zeros([BLOCK_C], dtype=tl.float32)
    for row in range(0, rows):
        base = row * cols
        dy = tl.load(dy_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        acc += dy * x * tl.load(r_ptr + row)
    tl.store(dw_ptr + offs, acc, mask=m)


def launch(args, params):
    dy, x, w, rstd, dx, dw = args
    rows, cols = params
    _rmsnorm_bwd_dx[(rows,)](dy, x, w, rstd, dx, cols, BLOCK=1024, num_warps=4)
    _rmsnorm_bwd_dw[(triton.cdiv(cols, 128),)](dy, x, rstd, dw, rows, cols,
                                               BLOCK_C=128, num_warps=4)
