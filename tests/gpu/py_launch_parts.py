#!/usr/bin/python3
"""tests/gpu/py_launch_parts.py - what a Python runner's launch costs on
the host, part by part, side by side in one process (issue 10/12: the
controller's clock charges a GPU runner's launches, so their host time and
its spread between processes decide false verdicts).

For a few argument lists shaped like a small task's (three arguments,
each placed at a new 256-byte offset per launch, as the runner places
them), the mean and median microseconds of:
  interface   a tensor per argument from __cuda_array_interface__ (the
              runner's slow path)
  views       ArgViews: one as_strided of a typed view of the allocation
  ctx         entering and leaving torch.cuda.stream(ExternalStream)
              (what the runner did around every call until 2026-12-07)
  keeper      stream_keeper's check that torch is on the runner's stream
  range       one cuMemGetAddressRange through ctypes
each alternated round by round, ROUNDS rounds of N launches.

usage: ARENA_PY_DIR=build/arena-python tests/gpu/py_launch_parts.py
"""
import os
import statistics
import sys
import time

sys.path.insert(0, os.environ.get("ARENA_PY_DIR", "build/arena-python"))
import arena_runner_py as rp  # noqa: E402
import torch  # noqa: E402

N = 500
ROUNDS = 20


def main():
    torch.cuda.init()
    r = rp.Runner("cuda", "", None, None, 0)
    r.torch = torch
    pool = torch.empty(512 << 20, dtype=torch.uint8, device="cuda")
    libcuda = None
    with open("/proc/self/maps") as f:
        for ln in f:
            p = ln.split()[-1] if ln.strip() else ""
            if "/libcuda.so" in p:
                libcuda = p
                break
    find = rp.driver_ranges(libcuda)
    views = rp.ArgViews(find, r.cuda_base)
    stream = torch.cuda.Stream()
    ext = torch.cuda.ExternalStream(stream.cuda_stream)
    specs = [(1, (32768, 1024)), (1, (32768, 1024)), (1, (1024,))]  # float32
    base = pool.data_ptr()

    def args(i):
        out = (rp.ArenaArg * len(specs))()
        at = 0
        for k, (dtype, shape) in enumerate(specs):
            a = out[k]
            a.dtype, a.rank = dtype, len(shape)
            for d, v in enumerate(shape):
                a.shape[d] = v
            n = 1
            for v in shape:
                n *= v
            a.numel = n
            a.data = base + at + ((i * 7 + k) % 64) * 256
            at += (n * 4 + (1 << 20)) // 256 * 256 + 256 * 64
        return out
    lists = [args(i) for i in range(64)]

    def interface(i):
        a = lists[i % 64]
        for k in range(len(specs)):
            r.cuda_tensor(a[k], tuple(a[k].shape[d] for d in range(a[k].rank)))

    def viewed(i):
        a = lists[i % 64]
        for k in range(len(specs)):
            x = a[k]
            t = views.tensor(x.data, x.numel * 4,
                             tuple(x.shape[d] for d in range(x.rank)),
                             torch.float32, 4)
            assert t is not None, "no view: the allocation was not found"

    def ctx(i):
        with torch.cuda.stream(ext):
            pass

    keep = rp.stream_keeper(torch, ext, stream.cuda_stream,
                            torch.cuda.current_device())

    def keeper(i):
        keep()

    def rng(i):
        find(base + (i % 64) * 256)

    parts = [("interface", interface), ("views", viewed), ("ctx", ctx),
             ("keeper", keeper), ("range", rng)]
    got = {name: [] for name, _ in parts}
    for _ in range(ROUNDS):
        for name, f in parts:
            t0 = time.perf_counter_ns()
            for i in range(N):
                f(i)
            got[name].append((time.perf_counter_ns() - t0) / N / 1e3)
    for name, _ in parts:
        v = got[name]
        print("%-10s median %.2f us a launch (rounds %.2f..%.2f)"
              % (name, statistics.median(v), min(v), max(v)))
    # The views are the same memory as the slow path's tensors.
    a = lists[5]
    t = views.tensor(a[0].data, a[0].numel * 4, (32768, 1024),
                     torch.float32, 4)
    assert t.data_ptr() == a[0].data and t.is_contiguous()
    print("views: data_ptr matches; cpu %s" % rp.LaunchClock.cpu())


if __name__ == "__main__":
    main()
