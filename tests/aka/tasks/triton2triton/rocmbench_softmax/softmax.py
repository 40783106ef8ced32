# Row softmax in the layout of a rocmbench task (arena's fixture): the
# kernel and its wrapper first, then the tests that check and time it.
import torch
import pytest

from performance_utils_pytest import PytestBenchmarker, do_bench_config


def softmax_kernel_online(out, x, n_rows, n_cols):
    for r in range(n_rows):
        m = x[r].max()
        e = torch.exp(x[r] - m)
        out[r] = e / e.sum()


def softmax(x):
    n_rows, n_cols = x.shape
    y = torch.empty_like(x)
    softmax_kernel_online(y, x, n_rows, n_cols)
    return y


def set_seed(seed=42):
    torch.manual_seed(seed)


@pytest.mark.parametrize('M, N', [(1, 1), (7, 33), (64, 128), (128, 256)])
def test_softmax(M, N, request):
    set_seed()
    x = torch.randn(M, N)
    y = softmax(x)
    assert torch.allclose(y, torch.softmax(x, dim=1), atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize('M, N', [(64, 128), (256, 512)])
@pytest.mark.parametrize('dtype_str', ['fp32'])
def test_performance(M, N, dtype_str, request):
    set_seed()
    x = torch.randn(M, N)
    bench = PytestBenchmarker(op_callable=lambda: softmax(x), op_name="softmax",
                              config=do_bench_config(warm_up=2, repetition=5))
    bench.run_benchmark(current_params_dict={"M": M, "N": N, "dtype_str": dtype_str})
