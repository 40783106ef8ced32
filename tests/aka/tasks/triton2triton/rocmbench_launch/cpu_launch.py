# Triton's launch syntax on a CPU, for arena's rocmbench_launch fixture
# (not Triton's code): `kernel[grid](*args, **kwargs)` runs the function
# once per program id along grid axis 0 (program_id() says which); a
# callable grid gets the bound
# arguments (meta), as Triton passes them, and `autotuned` adds the block
# size it picks, as an autotuner's configuration would.
import inspect

_pid = [0]


def program_id():
    return _pid[0]


class Launchable:
    def __init__(self, fn, config=None):
        self.fn = fn
        self.config = dict(config or {})

    def __getitem__(self, grid):
        def launch(*args, **kwargs):
            kwargs = dict(kwargs, **self.config)
            b = inspect.signature(self.fn).bind(*args, **kwargs)
            meta = dict(b.arguments)
            g = grid(meta) if callable(grid) else grid
            g = tuple(g) if isinstance(g, (tuple, list)) else (g,)
            for pid in range(g[0]):
                _pid[0] = pid
                self.fn(*args, **kwargs)
        return launch


def jit(fn):
    return Launchable(fn)


def autotuned(**config):
    return lambda k: Launchable(k.fn, config)


def cdiv(a, b):
    return (a + b - 1) // b
