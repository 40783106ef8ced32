# Scaled row normalisation in the layout of a rocmbench task (arena's
# fixture): the kernel and its wrapper, then tests whose arguments come
# from conftest.py's fixtures, this module's fixture, default values and
# dictionaries, then the benchmarks.
import pytest
import torch

from performance_utils_pytest import PytestBenchmarker, do_bench_config


def scaled_rownorm_kernel(out, x, scale, eps):
    for r in range(x.shape[0]):
        row = x[r]
        out[r] = scale * row / torch.sqrt((row * row).mean() + eps)


def scaled_rownorm(x, scale, eps):
    out = torch.empty_like(x)
    scaled_rownorm_kernel(out, x, scale, eps)
    return out


def reference(x, scale, eps):
    return scale * x / torch.sqrt((x * x).mean(dim=1, keepdim=True) + eps)


@pytest.fixture
def eps():
    return 1e-6


def test_rownorm(rows, dtype_name, device, eps, scale=2.0):
    torch.manual_seed(rows)
    dt = getattr(torch, dtype_name)
    x = torch.randn(rows, 40, dtype=dt, device=device)
    torch.testing.assert_close(scaled_rownorm(x, scale, eps),
                               reference(x, scale, eps), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("shape", [{"rows": 5, "cols": 9}, {"rows": 2, "cols": 64}])
def test_rownorm_dict_shapes(shape, device, eps):
    torch.manual_seed(7)
    x = torch.randn(shape["rows"], shape["cols"], device=device)
    torch.testing.assert_close(scaled_rownorm(x, 0.5, eps),
                               reference(x, 0.5, eps), atol=1e-5, rtol=1e-5)


def test_rownorm_half(device):
    pytest.skip("half precision is not checked in this fixture")


@pytest.mark.parametrize("shape", [{"rows": 64, "cols": 256}, {"rows": 128, "cols": 512}])
def test_performance(shape, dtype_name, device, eps):
    torch.manual_seed(0)
    x = torch.randn(shape["rows"], shape["cols"], dtype=getattr(torch, dtype_name),
                    device=device)
    bench = PytestBenchmarker(op_callable=lambda: scaled_rownorm(x, 2.0, eps),
                              op_name="scaled_rownorm",
                              config=do_bench_config(warm_up=2, repetition=5))
    bench.run_benchmark(current_params_dict=dict(shape, dtype=dtype_name))


def test_save_performance_results():
    pass
