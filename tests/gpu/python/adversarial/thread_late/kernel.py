"""Returns at once and leaves a Python thread to launch the kernel a little
later: work left running after launch() returned.  The candidate runner
has more threads than the baseline's after the call: rejected."""
import torch
import triton
import triton.language as tl
import threading
import time


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


def _late(x, w, y, rows, cols, stream):
    time.sleep(0.2)
    with torch.cuda.stream(stream):
        _run(x, w, y, rows, cols)


def launch(args, params):
    x, w, y = args
    rows, cols = params
    threading.Thread(target=_late, daemon=True,
                     args=(x, w, y, rows, cols,
                           torch.cuda.current_stream())).start()
