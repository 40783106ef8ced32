"""Does the work outside the request: a C-level SIGCONT handler (set with
ctypes) computes y the moment the controller resumes the runner for its
request, after the inputs were written, so that launch() itself returns at
once and claims almost nothing.  The controller charges everything the
process did while resumed (its CPU time as the kernel accounts it), and
the claims no longer match that accounting: rejected."""
import ctypes
import signal

import torch

_state = {"args": None, "done": False}
_libc = ctypes.CDLL(None)
_HANDLER = ctypes.CFUNCTYPE(None, ctypes.c_int)


def _horner(x, y):
    torch.mul(x, 1.0 / 24.0, out=y)
    y.add_(1.0 / 6.0).mul_(x)
    y.add_(0.5).mul_(x)
    y.add_(1.0).mul_(x)
    y.add_(1.0)


def _on_cont(sig):
    a = _state["args"]
    if a is not None:
        _horner(*a)
        _state["done"] = True


_handler = _HANDLER(_on_cont)
_libc.signal.restype = ctypes.c_void_p
_libc.signal(int(signal.SIGCONT), _handler)


def launch(args, params):
    x, y = args
    if _state["done"] and _state["args"] is not None and \
            _state["args"][0].data_ptr() == x.data_ptr():
        _state["done"] = False
        return
    _state["args"] = (x, y)
    _horner(x, y)
