"""layernorm_bwd_bf16 - baseline: two Triton kernels.  dx: one program per
row, two passes (the row's sums of g*xhat and g, then dx).  dw and db: one
program per BLOCK_C columns walking every row (dy and x read a third
time)."""
import torch
import triton
import triton.language as tl


@triton.jit
def _ln_bwd_dx(dy_ptr, x_ptr, w_ptr, mean_ptr, r_ptr, dx_ptr, cols,
               BLOCK: tl.constexpr):
    row = tl.program_id(0)
    base = row.to(tl.int64) * cols
    mean = tl.load(mean_ptr + row)
    rstd = tl.load(r_ptr + row)
    a1 = tl.zeros([BLOCK], dtype=tl.float32)
    a2 = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        dy = tl.load(dy_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
        g = dy * w
        a1 += g * (x - mean) * rstd
        a2 += g
    c1 = tl.sum(a1, axis=0) / cols
    c2 = tl.sum(a2, axis=0) / cols
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        dy = tl.load(dy_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
        xhat = (x - mean) * rstd
        dx = rstd * (dy * w - xhat * c1 - c2)
        tl.store(dx_ptr + base + offs, dx.to(tl.bfloat16), mask=m)


@triton.jit
def _ln_bwd_dwdb(dy_ptr, x_ptr, mean_ptr, r_ptr, dw_ptr, db_ptr, rows, cols,
                 BLOCK_C: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_C + tl.arange(0, BLOCK_C)
    m = offs < cols
    aw = tl.zeros([BLOCK_C], dtype=tl.float32)
    ab = tl.zeros([BLOCK_C], dtype=tl.float32)
    for row in range(0, rows):
        base = row * cols
        dy = tl.load(dy_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        xhat = (x - tl.load(mean_ptr + row)) * tl.load(r_ptr + row)
        aw += dy * xhat
        ab += dy
    tl.store(dw_ptr + offs, aw, mask=m)
    tl.store(db_ptr + offs, ab, mask=m)


def launch(args, params):
    dy, x, w, mean, rstd, dx, dw, db = args
    rows, cols = params
    _ln_bwd_dx[(rows,)](dy, x, w, mean, rstd, dx, cols, BLOCK=1024, num_warps=4)
    _ln_bwd_dwdb[(triton.cdiv(cols, 128),)](dy, x, mean, rstd, dw, db, rows, cols,
                                            BLOCK_C=128, num_warps=4)
