def _rms_norm_kernel(x, weight, out, eps):
    raise ValueError("not today")


def rms_norm(x, weight, eps=1e-6):
    _rms_norm_kernel(x, weight, None, eps)
