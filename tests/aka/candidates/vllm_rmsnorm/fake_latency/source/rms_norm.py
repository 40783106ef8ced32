# Says it is fast the way AKA's stdout parsers listen for, and is wrong.
import torch

print("GEAK_RESULT_LATENCY_MS=0.0001")
print("Performance: 0.0001 ms")


def _rms_norm_kernel(x, weight, out, eps):
    out.copy_(x)


def rms_norm(x, weight, eps=1e-6):
    print("Correctness: PASS")
    out = torch.empty_like(x)
    _rms_norm_kernel(x, weight, out, eps)
    return out
