"""Does the work on a stream of its own and returns without joining it to
the stream it was given: the runner's events see nothing, the
controller's clock and the device-wide waits (drain, the keeper's probe)
see all of it, and the ordering check sees y change while the given
stream is held.  Rejected."""
import torch
import triton
import triton.language as tl


@triton.jit
def _rmsnorm(x_ptr, w_ptr, y_ptr, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    m = offs < cols
    v = tl.load(x_ptr + row * cols + offs, mask=m, other=0.0).to(tl.float32)
    r = 1.0 / tl.sqrt(tl.sum(v * v, axis=0) / cols + eps)
    w = tl.load(w_ptr + offs, mask=m, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * cols + offs, (v * r * w).to(tl.bfloat16), mask=m)


def _run(x, w, y, rows, cols):
    block = triton.next_power_of_2(cols)
    warps = 4 if block <= 2048 else 8 if block <= 4096 else 16
    _rmsnorm[(rows,)](x, w, y, cols, 1e-6, BLOCK=block, num_warps=warps)


_side = []


def launch(args, params):
    x, w, y = args
    rows, cols = params
    if not _side:
        _side.append(torch.cuda.Stream())
    with torch.cuda.stream(_side[0]):
        for _ in range(4):
            _run(x, w, y, rows, cols)
