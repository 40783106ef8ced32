"""rmsnorm_bf16 - baseline: one program per row, two passes over the row in
chunks of BLOCK (sum of squares, then scale and store), NUM_WARPS warps."""
import torch
import triton
import triton.language as tl

BLOCK = 256
NUM_WARPS = 1
NUM_STAGES = 1


@triton.jit
def _rmsnorm(x_ptr, w_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * cols
    y_row = y_ptr + row * cols
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        v = tl.load(x_row + offs, mask=m, other=0.0).to(tl.float32)
        acc += v * v
    r = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / cols + eps)
    for start in range(0, cols, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < cols
        v = tl.load(x_row + offs, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
        tl.store(y_row + offs, (v * r * w).to(tl.bfloat16), mask=m)


def launch(args, params):
    x, w, y = args
    rows, cols = params
    _rmsnorm[(rows,)](x, w, y, cols, 1e-6, BLOCK=BLOCK, num_warps=NUM_WARPS,
                      num_stages=NUM_STAGES)
