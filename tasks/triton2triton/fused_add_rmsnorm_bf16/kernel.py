"""fused_add_rmsnorm_bf16 - baseline: one program per row, two passes over
the row in chunks of BLOCK with NUM_WARPS warps.  Pass 1 adds, stores the
rounded sum and accumulates its squares; pass 2 reads x and residual again,
recomputes the sum and writes the normalised row."""
import torch
import triton
import triton.language as tl

BLOCK = 512
NUM_WARPS = 2


@triton.jit
def _fused_add_rmsnorm(x_ptr, r_ptr, w_ptr, y_ptr, ro_ptr, cols, eps,
                       BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = row * cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        r = tl.load(r_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        z = (x + r).to(tl.bfloat16)
        tl.store(ro_ptr + base + offs, z, mask=m)
        zf = z.to(tl.float32)
        acc += zf * zf
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        x = tl.load(x_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        r = tl.load(r_ptr + base + offs, mask=m, other=0.0).to(tl.float32)
        z = (x + r).to(tl.bfloat16).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + offs, (z * rstd * w).to(tl.bfloat16), mask=m)


def launch(args, params):
    x, residual, w, y, residual_out = args
    rows, cols = params
    _fused_add_rmsnorm[(rows,)](x, residual, w, y, residual_out, cols, 1e-6,
                                BLOCK=BLOCK, num_warps=NUM_WARPS)
