# arena's candidate for the rocmbench_launch fixture: scale_kernel's
# autotuner picks another block size, so its direct launches need another
# grid (the recorded grid is an expression of BLOCK, evaluated again).
# The results are the same; with the grid of the shipped block size (96)
# it would cover only a third of the elements.
import pytest
import torch

from cpu_launch import autotuned, cdiv, jit, program_id
from performance_utils_pytest import PytestBenchmarker, do_bench_config


@jit
def add_kernel(x, y, out, n, BLOCK):
    lo = program_id() * BLOCK
    hi = min(lo + BLOCK, n)
    out[lo:hi] = x[lo:hi] + y[lo:hi]


@autotuned(BLOCK=32)
@jit
def scale_kernel(x, n, factor, BLOCK):
    lo = program_id() * BLOCK
    hi = min(lo + BLOCK, n)
    x[lo:hi] *= factor


@jit
def axpy_kernel(a, x, y, out, n, BLOCK):
    lo = program_id() * BLOCK
    hi = min(lo + BLOCK, n)
    out[lo:hi] = a * x[lo:hi] + y[lo:hi]


class _Axpy(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, x, y):
        out = torch.empty_like(x)
        n = x.numel()
        axpy_kernel[(cdiv(n, 64),)](a, x, y, out, n, BLOCK=64)
        return out


axpy = _Axpy.apply


@pytest.mark.parametrize("n", [100, 1000])
def test_add(n):
    torch.manual_seed(n)
    x, y = torch.randn(n), torch.randn(n)
    out = torch.empty(n)
    add_kernel[lambda meta: (cdiv(n, meta["BLOCK"]),)](x, y, out, n, BLOCK=128)
    torch.testing.assert_close(out, x + y)


@pytest.mark.parametrize("n", [200, 999])
def test_scale(n):
    torch.manual_seed(n)
    x = torch.randn(n)
    want = x * 3.0
    scale_kernel[lambda meta: (cdiv(meta["n"], meta["BLOCK"]),)](x, n, 3.0)
    torch.testing.assert_close(x, want)


def test_axpy():
    torch.manual_seed(1)
    x, y = torch.randn(300), torch.randn(300)
    torch.testing.assert_close(axpy(0.5, x, y), 0.5 * x + y)


@pytest.mark.parametrize("n", [4096, 8192])
def test_performance(n):
    torch.manual_seed(0)
    x, y = torch.randn(n), torch.randn(n)
    out = torch.empty(n)
    grid = lambda meta: (cdiv(n, meta["BLOCK"]),)  # noqa: E731
    for op in (lambda: add_kernel[grid](x, y, out, n, BLOCK=256),
               lambda: scale_kernel[grid](x, n, 1.0001),
               lambda: axpy(2.0, x, y)):
        PytestBenchmarker(op_callable=op, op_name="launch",
                          config=do_bench_config(warm_up=2, repetition=5)
                          ).run_benchmark(current_params_dict={"n": n})
