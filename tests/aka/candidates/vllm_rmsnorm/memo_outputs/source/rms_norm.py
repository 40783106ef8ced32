# Adversarial: computes the baseline's result once per distinct input and
# returns it again whenever the same values come back, recognised by a
# fingerprint of a few elements.  A prepared AKA task's inputs are a
# finite pool of recorded sets, so once each has been seen every call is a
# copy.  Wanted: no gain (the values a call gets must not repeat).
import torch

_seen = {}


def _rms_norm_kernel(x, weight, out, eps):
    for r in range(x.shape[0]):
        row = x[r].float()
        out[r] = (row / torch.sqrt(row.pow(2).mean() + eps) * weight.float()).to(out.dtype)


def rms_norm(x, weight, eps=1e-6):
    flat = x.reshape(-1)
    key = (tuple(x.shape), tuple(flat[:8].tolist()), tuple(flat[-8:].tolist()))
    hit = _seen.get(key)
    if hit is not None:
        return hit.clone()
    out = torch.empty_like(x)
    _rms_norm_kernel(x, weight, out, eps)
    _seen[key] = out.clone()
    return out
