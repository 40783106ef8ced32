"""triton_emu - a CPU emulation of the part of Triton that the Python tasks'
baselines use, so that their indexing, masks and arithmetic can be checked
against the references on a machine without a GPU or Triton (CI, the
development VM).

It is not Triton: programs run one after another as plain PyTorch on block
tensors, there is no compiler, no layout, no shape rule beyond the
power-of-two check of tl.arange, and integer widths are PyTorch's (int32
overflow in pointer arithmetic is NOT caught).  A kernel that passes here
may still fail to compile or be wrong on a GPU; one that fails here is wrong.
install() puts fake `triton` and `triton.language` modules in sys.modules.
"""
import builtins
import itertools
import sys
import types

import torch

_pid = [0, 0, 0]
_grid = [1, 1, 1]


class Ptr:
    """A pointer (block): a flat storage tensor and element offsets."""

    def __init__(self, base, off):
        self.base = base
        self.off = off

    @property
    def dtype(self):
        return self.base.dtype

    def _o(self, k):
        if isinstance(k, torch.Tensor):
            if k.dtype.is_floating_point:
                raise TypeError("pointer offset is not an integer")
            k = k.to(torch.int64)
        return k

    def __add__(self, k):
        return Ptr(self.base, self.off + self._o(k))

    __radd__ = __add__

    def __sub__(self, k):
        return Ptr(self.base, self.off - self._o(k))

    def __getitem__(self, idx):
        o = self.off if isinstance(self.off, torch.Tensor) else torch.tensor(self.off)
        return Ptr(self.base, o[idx])


def _bcast(off, mask):
    o = off if isinstance(off, torch.Tensor) else torch.tensor(off, dtype=torch.int64)
    if mask is None:
        return o, None
    m = mask if isinstance(mask, torch.Tensor) else torch.tensor(bool(mask))
    o, m = torch.broadcast_tensors(o, m)
    return o, m


def load(ptr, mask=None, other=None, **_):
    o, m = _bcast(ptr.off, mask)
    n = ptr.base.numel()
    if m is None:
        if o.numel() and (int(o.min()) < 0 or int(o.max()) >= n):
            raise IndexError("unmasked load out of bounds (%d..%d of %d)"
                             % (int(o.min()), int(o.max()), n))
        return ptr.base[o.to(torch.int64)].clone()
    safe = torch.where(m, o, torch.zeros_like(o)).to(torch.int64)
    if m.any() and (int(o[m].min()) < 0 or int(o[m].max()) >= n):
        raise IndexError("masked load out of bounds")
    v = ptr.base[safe]
    fill = 0 if other is None else other
    return torch.where(m, v, torch.tensor(fill, dtype=v.dtype))


def store(ptr, val, mask=None, **_):
    o, m = _bcast(ptr.off, mask)
    v = val if isinstance(val, torch.Tensor) else torch.tensor(val)
    v = torch.broadcast_to(v.to(ptr.base.dtype), o.shape)
    n = ptr.base.numel()
    if m is not None:
        o, v = o[m], v[m]
    if o.numel() and (int(o.min()) < 0 or int(o.max()) >= n):
        raise IndexError("store out of bounds (%d..%d of %d)"
                         % (int(o.min()), int(o.max()), n))
    ptr.base[o.to(torch.int64)] = v


def atomic_add(ptr, val, mask=None, **_):
    o, m = _bcast(ptr.off, mask)
    v = val if isinstance(val, torch.Tensor) else torch.tensor(val)
    v = torch.broadcast_to(v.to(ptr.base.dtype), o.shape)
    if m is not None:
        o, v = o[m], v[m]
    ptr.base.index_put_((o.reshape(-1).to(torch.int64),), v.reshape(-1), accumulate=True)


def program_id(axis):
    return torch.tensor(_pid[axis], dtype=torch.int32)


def num_programs(axis):
    return torch.tensor(_grid[axis], dtype=torch.int32)


def arange(a, b):
    n = b - a
    if n <= 0 or n & (n - 1):
        raise ValueError("tl.arange(%d, %d): the length must be a power of two" % (a, b))
    return torch.arange(a, b, dtype=torch.int32)


def zeros(shape, dtype):
    return torch.zeros(shape, dtype=dtype)


def full(shape, value, dtype):
    return torch.full(shape, value, dtype=dtype)


def _red(fn):
    def r(x, axis=None, keep_dims=False):
        if axis is None:
            return fn(x.reshape(-1), 0, False)
        return fn(x, axis, keep_dims)
    return r


def _sum(x, axis, kd):
    if x.dtype in (torch.bfloat16, torch.float16):
        x = x.float()
    if x.dtype in (torch.int8, torch.int16, torch.uint8, torch.bool):
        x = x.to(torch.int32)
    return x.sum(axis, keepdim=kd).to(x.dtype)


sum = _red(_sum)
max = _red(lambda x, a, k: x.max(a, keepdim=k).values)
min = _red(lambda x, a, k: x.min(a, keepdim=k).values)


def argmax(x, axis):
    return x.argmax(axis).to(torch.int32)


def argmin(x, axis):
    return x.argmin(axis).to(torch.int32)


def _t(x):
    if isinstance(x, torch.Tensor):
        return x
    if isinstance(x, bool):
        return torch.tensor(x)
    if isinstance(x, int):
        return torch.tensor(x, dtype=torch.int32 if -2**31 <= x < 2**31 else torch.int64)
    return torch.tensor(x, dtype=torch.float32)


def where(c, a, b):
    a, b = _t(a), _t(b)
    return torch.where(_t(c).bool(), a, b)


def _f(fn):
    return lambda x: fn(_t(x).float() if not _t(x).dtype.is_floating_point else _t(x))


exp = _f(torch.exp)
exp2 = _f(torch.exp2)
log = _f(torch.log)
log2 = _f(torch.log2)
sqrt = _f(torch.sqrt)
rsqrt = _f(torch.rsqrt)
sigmoid = _f(torch.sigmoid)
erf = _f(torch.erf)
cos = _f(torch.cos)
sin = _f(torch.sin)
abs = lambda x: torch.abs(_t(x))  # noqa: E731


def maximum(a, b):
    return torch.maximum(_t(a), _t(b))


def minimum(a, b):
    return torch.minimum(_t(a), _t(b))


def clamp(x, lo, hi):
    return torch.clamp(_t(x), lo, hi)


def fma(a, b, c):
    return a * b + c


def cdiv(a, b):
    return (a + b - 1) // b


def dot(a, b, acc=None, out_dtype=None, **_):
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError("tl.dot shapes %s x %s" % (tuple(a.shape), tuple(b.shape)))
    if builtins.min(a.shape[0], a.shape[1], b.shape[1]) < 16:
        raise ValueError("tl.dot needs every dimension >= 16")
    if a.dtype != b.dtype:
        raise TypeError("tl.dot of %s and %s" % (a.dtype, b.dtype))
    if a.dtype == torch.int8:
        r = (a.to(torch.int64) @ b.to(torch.int64)).to(torch.int32)
    else:
        r = a.double() @ b.double()
        r = r.float()
    return r if acc is None else acc + r


def trans(x):
    return x.t()


def reshape(x, shape, **_):
    return x.reshape(shape)


def broadcast_to(x, shape):
    return torch.broadcast_to(_t(x), shape)


def static_range(*a):
    return range(*a)


class constexpr:
    pass


class _Kernel:
    def __init__(self, fn):
        self.fn = fn

    def __getitem__(self, grid):
        def run(*args, **kw):
            for k in ("num_warps", "num_stages", "num_ctas"):
                kw.pop(k, None)
            g = grid(kw) if callable(grid) else grid
            g = tuple(g) + (1,) * (3 - len(g))
            a = [Ptr(x.reshape(-1) if x.is_contiguous() else _nc(x), 0)
                 if isinstance(x, torch.Tensor) else x for x in args]
            _grid[:] = list(g)
            for p in itertools.product(range(g[0]), range(g[1]), range(g[2])):
                _pid[:] = list(p)
                self.fn(*a, **kw)
        return run


def _nc(x):
    raise ValueError("emulated kernels take contiguous tensors only")


def jit(fn=None, **_):
    if fn is None:
        return lambda f: _Kernel(f)
    return _Kernel(fn)


def install():
    tl = types.ModuleType("triton.language")
    for k, v in globals().items():
        if not k.startswith("_") or k in ("__doc__",):
            setattr(tl, k, v)
    tl.float32, tl.float16, tl.bfloat16, tl.float64 = (
        torch.float32, torch.float16, torch.bfloat16, torch.float64)
    tl.int8, tl.int16, tl.int32, tl.int64, tl.uint8 = (
        torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)
    tl.int1 = torch.bool
    tr = types.ModuleType("triton")
    tr.jit = jit
    tr.cdiv = lambda a, b: -(-a // b)
    tr.next_power_of_2 = lambda n: 1 << (n - 1).bit_length() if n > 1 else 1
    tr.language = tl
    tr.Config = lambda *a, **k: None
    tr.autotune = lambda *a, **k: (lambda f: f)
    sys.modules["triton"] = tr
    sys.modules["triton.language"] = tl
    return tr
