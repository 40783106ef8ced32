"""y = alpha * x + b, elementwise, in chunks (arena's geak_eval-style
fixture), with the bias "prepared" once per buffer and kept by the buffer's
address, as AKA's geak_eval llama_ff_triton keeps its combined weights:
right while the harness's inputs never change in place, stale once new
values arrive in the same buffer."""
import torch

EVAL_CONFIGS = [{"n": 4096}, {"n": 65536}, {"n": 262144}]
PROFILE_CONFIGS = EVAL_CONFIGS[:1]


def _scale_add_kernel(x, b, y, alpha, chunk):
    for s in range(0, x.numel(), chunk):
        y[s:s + chunk] = alpha * x[s:s + chunk] + b[s:s + chunk]


_prepared = {}


def scale_add(x, b, y, alpha=2.0):
    key = (b.data_ptr(), b.numel())
    bias = _prepared.get(key)
    if bias is None:
        bias = _prepared[key] = b.clone()
    _scale_add_kernel(x, bias, y, alpha, 1024)


def scale_add_reference(x, b, alpha=2.0):
    return alpha * x + b


def get_inputs(n):
    x = torch.randn(n)
    b = torch.randn(n)
    y = torch.empty(n)
    return x, b, y
