"""aka_calls.py - the recording core of aka_record.py (docs/aka.md): the
programs (a case's calls of the kernel module, the tensors they view, what
they return), the recorder that proxies the kernel's callables, which
callables those are, and the seeds of reseeded input sets.  Trusted code;
the controller runs it in aka_record.py's process only."""
import ast
import random
import re

MAX_PROGRAM_BYTES = 1 << 30


class Unsupported(Exception):
    pass


class TaskFault(Exception):
    """The task cannot be evaluated by arena for a reason of its own
    (its kernel as shipped is not a function of its arguments)."""


def torch_mod():
    import torch
    return torch


def storage_key(t):
    try:
        return t.untyped_storage().data_ptr()
    except AttributeError:
        return t.storage().data_ptr()


def storage_elems(t):
    try:
        nbytes = t.untyped_storage().nbytes()
    except AttributeError:
        nbytes = t.storage().nbytes()
    return nbytes // t.element_size()


def dtype_name(dt):
    return str(dt)[6:]


def triton_dtype_name(v):
    """The name of a Triton scalar type (triton.language.float16 is
    dtype('fp16')), else None: launchers pass one as a constexpr, e.g. the
    accumulator type of a matmul.  Recognised by its class, so that this
    module never imports Triton (the recorder also runs where there is
    none); pointer and block types are other classes, not recorded."""
    t = type(v)
    if (t.__name__ == "dtype" and t.__module__.startswith("triton.language")
            and isinstance(getattr(v, "name", None), str)):
        return v.name
    return None




# ---- recording -----------------------------------------------------------

class Program:
    """The calls of one case (one benchmarked function, or one check)."""

    def __init__(self, label):
        self.label = label
        self.calls = []
        self.storages = {}      # key -> {"snap": tensor, "base": tensor, ...}
        self.order = []         # storage keys in first-seen order
        self.views = []         # (key, tensor)
        self.view_ids = {}
        self.rets = {}          # id(tensor) -> (call, leaf)
        # The returned tensors themselves, so that their ids (the keys of
        # rets) are not reused by later tensors while this program lives.
        self.ret_objs = []
        self.outs = []          # returned leaves: ("t", tensor) / ("s", value)
        self.error = None
        self.nbytes = 0

    def view(self, t):
        torch = torch_mod()
        if id(t) in self.view_ids:
            return self.view_ids[id(t)]
        if t.is_sparse or t.layout != torch.strided:
            raise Unsupported("a sparse or non-strided tensor argument")
        if t.is_complex():
            raise Unsupported("a complex tensor argument")
        key = storage_key(t)
        st = self.storages.get(key)
        if st is None:
            n = storage_elems(t)
            base = t.as_strided((n,), (1,), 0) if n else t.reshape(0)
            self.nbytes += n * t.element_size()
            if self.nbytes > MAX_PROGRAM_BYTES:
                raise Unsupported("its calls read more than 1 GiB")
            st = {"base": base, "snap": base.detach().clone(),
                  "dtype": t.dtype}
            self.storages[key] = st
            self.order.append(key)
        elif st["dtype"] != t.dtype:
            raise Unsupported("one storage viewed as %s and as %s"
                              % (dtype_name(st["dtype"]), dtype_name(t.dtype)))
        self.view_ids[id(t)] = len(self.views)
        self.views.append((key, t))
        return len(self.views) - 1

    def encode(self, v, depth=0):
        torch = torch_mod()
        if depth > 8:
            raise Unsupported("arguments nested more than 8 deep")
        if isinstance(v, torch.Tensor):
            if id(v) in self.rets:
                return {"r": list(self.rets[id(v)])}
            return {"v": self.view(v)}
        if isinstance(v, bool):
            return {"b": v}
        if isinstance(v, int):
            return {"i": v}
        if isinstance(v, float):
            return {"f": repr(v)}
        if v is None:
            return {"n": 1}
        if isinstance(v, str):
            return {"s": v}
        if isinstance(v, torch.dtype):
            return {"dt": dtype_name(v)}
        if isinstance(v, torch.device):
            return {"dev": v.type}
        tdt = triton_dtype_name(v)
        if tdt is not None:
            return {"tdt": tdt}
        if isinstance(v, list):
            return {"l": [self.encode(e, depth + 1) for e in v]}
        if isinstance(v, tuple):
            return {"t": [self.encode(e, depth + 1) for e in v]}
        if isinstance(v, dict) and all(isinstance(k, str) for k in v):
            return {"d": {k: self.encode(e, depth + 1) for k, e in v.items()}}
        raise Unsupported("an argument of type %s" % type(v).__name__)

    def returned(self, got, ci, leaves, depth=0):
        torch = torch_mod()
        if isinstance(got, torch.Tensor):
            self.rets[id(got)] = (ci, len(leaves))
            self.ret_objs.append(got)
            leaves.append(got)
            self.outs.append(("t", got.detach().clone()))
            return {"o": len(self.outs) - 1}
        if isinstance(got, (bool, int, float)) and not isinstance(got, bool):
            leaves.append(got)
            self.outs.append(("s", got))
            return {"os": len(self.outs) - 1}
        if isinstance(got, (tuple, list)) and depth < 4:
            return {"t": [self.returned(g, ci, leaves, depth + 1) for g in got]}
        leaves.append(got)
        return {"n": 1}


class Recorder:
    """Proxies the kernel module's callables; records the outermost calls
    made while a program is open."""

    def __init__(self):
        self.prog = None
        self.depth = 0
        self.launchable = {}    # id(kernel object) -> (name, object)
        # Called before every outermost call (args, kwargs): where the
        # driver splits calls into programs.
        self.on_outer = None
        self.patched = set()
        # The negative control: every outermost call's results corrupted
        # (returned tensors, and tensor arguments it wrote), so that a
        # harness that checks its kernel must notice.
        self.sabotage = False

    def open(self, label):
        self.prog = Program(label)

    def close(self):
        p, self.prog = self.prog, None
        return p

    def wrap(self, path, fn):
        rec = self

        def proxy(*args, **kwargs):
            return rec.call(path, fn, args, kwargs, None)
        proxy.__wrapped__ = fn
        proxy.__name__ = getattr(fn, "__name__", path[-1])
        return proxy

    def call(self, path, fn, args, kwargs, grid):
        """One call of a kernel callable (grid: a direct launch's grid, or
        None): recorded when it is outermost in an open program."""
        if self.sabotage and self.depth == 0:
            return sabotaged(self, fn, args, kwargs)
        if self.depth == 0 and self.on_outer is not None:
            self.on_outer(args, kwargs)
        p = self.prog
        enc = None
        if p is not None and self.depth == 0 and not p.error:
            try:
                enc = {"fn": path, "args": [p.encode(a) for a in args],
                       "kwargs": {k: p.encode(v) for k, v in kwargs.items()}}
                if grid is not None:
                    enc["grid"] = grid_spec(grid, path[-1], args, kwargs)
            except Unsupported as e:
                p.error = "calls %s with %s" % (".".join(path), e)
                enc = None
        # Calls made inside this one are never outermost, recorded or not.
        self.depth += 1
        if enc is None:
            try:
                return fn(*args, **kwargs)
            finally:
                self.depth -= 1
        try:
            got = fn(*args, **kwargs)
        finally:
            self.depth -= 1
        enc["ret"] = p.returned(got, len(p.calls), [])
        p.calls.append(enc)
        # What the program's storages hold after its latest call.
        for st in p.storages.values():
            st["after"] = st["base"].detach().clone()
        return got

    def watch_launches(self, named):
        """Direct launches (`kernel[grid](...)`) of the given kernel
        objects, [(name, object)], are recorded like calls of a function,
        with their grid.  The objects stay where they are (Triton's
        compiler resolves a kernel's globals, so they are not replaced):
        the __getitem__ of the class that defines it is patched, once, and
        only the watched objects' launches are recorded."""
        for name, obj in named:
            cls = next((c for c in type(obj).__mro__
                        if "__getitem__" in c.__dict__), None)
            if cls is None or cls in (dict, list, tuple, str, object):
                continue
            self.launchable[id(obj)] = (name, obj)
            if cls in self.patched:
                continue
            orig = cls.__dict__["__getitem__"]
            rec = self

            def getitem(kobj, grid, _orig=orig):
                launcher = _orig(kobj, grid)
                hit = rec.launchable.get(id(kobj))
                if hit is None or hit[1] is not kobj:
                    return launcher

                def launch(*args, **kwargs):
                    return rec.call([hit[0]], launcher, args, kwargs,
                                    (grid, kobj))
                return launch
            try:
                cls.__getitem__ = getitem
            except TypeError:
                continue
            self.patched.add(cls)


# ---- launch grids ------------------------------------------------------------

class Sym:
    """A value of a launch grid's meta-parameters that the call does not
    fix (an autotuned block size): the grid is kept as an expression of
    it, evaluated again with the candidate's own configuration."""

    def __init__(self, e):
        self.e = e

    def _op(self, op, other, swap=False):
        o = other.e if isinstance(other, Sym) else other
        if not isinstance(o, (int, dict)) or isinstance(o, bool):
            raise Unsupported("a grid that computes with %s"
                              % type(other).__name__)
        a, b = (o, self.e) if swap else (self.e, o)
        return Sym({"op": op, "a": a, "b": b})

    def __add__(self, o):
        return self._op("+", o)

    def __radd__(self, o):
        return self._op("+", o, True)

    def __sub__(self, o):
        return self._op("-", o)

    def __rsub__(self, o):
        return self._op("-", o, True)

    def __mul__(self, o):
        return self._op("*", o)

    def __rmul__(self, o):
        return self._op("*", o, True)

    def __floordiv__(self, o):
        return self._op("//", o)

    def __rfloordiv__(self, o):
        return self._op("//", o, True)

    def __neg__(self):
        return Sym({"op": "-", "a": 0, "b": self.e})

    def __bool__(self):
        raise Unsupported("a grid that branches on its autotuned "
                          "meta-parameters")

    __index__ = __int__ = __bool__


class SymMeta(dict):
    def __missing__(self, key):
        return Sym({"k": str(key)})


def kernel_function(kobj):
    """The Python function under a kernel object (JITFunction, Autotuner,
    Heuristics, ... keep it in .fn)."""
    import inspect
    f = kobj
    for _ in range(8):
        if inspect.isfunction(f):
            return f
        f = getattr(f, "fn", None)
    return None


def grid_spec(grid_kobj, name, args, kwargs):
    """A launch grid as the shim replays it: a list of ints, or of
    expressions ({"k": meta key}, {"op", "a", "b"}) where it depends on
    meta-parameters the call does not give (Triton passes the kernel's
    bound arguments, its configuration included, to a callable grid)."""
    import inspect
    grid, kobj = grid_kobj
    if callable(grid):
        meta = SymMeta()
        f = kernel_function(kobj)
        if f is not None:
            sig = inspect.signature(f)
            kw = {k: v for k, v in kwargs.items() if k in sig.parameters}
            try:
                b = sig.bind_partial(*args, **kw)
                b.apply_defaults()
                meta.update(b.arguments)
            except TypeError:
                pass
        try:
            grid = grid(meta)
        except Unsupported:
            raise
        except Exception as e:  # noqa: B902 - the task's grid function
            raise Unsupported("a launch grid of %s that arena cannot "
                              "evaluate (%s: %s)" % (name, type(e).__name__, e))
    if not isinstance(grid, (tuple, list)):
        grid = (grid,)
    out = []
    for g in grid:
        if isinstance(g, Sym):
            out.append(g.e)
        elif isinstance(g, int) and not isinstance(g, bool):
            out.append(int(g))
        elif hasattr(g, "__index__") and not isinstance(g, bool):
            out.append(int(g.__index__()))
        else:
            raise Unsupported("a launch grid of %s holding %s"
                              % (name, type(g).__name__))
    return out


def tensors_in(v, out, depth=0):
    torch = torch_mod()
    if isinstance(v, torch.Tensor):
        out.append(v)
    elif isinstance(v, (list, tuple)) and depth < 6:
        for e in v:
            tensors_in(e, out, depth + 1)
    elif isinstance(v, dict) and depth < 6:
        for e in v.values():
            tensors_in(e, out, depth + 1)
    return out


def corrupt(t):
    torch = torch_mod()
    if t.numel() == 0:
        return
    if t.dtype == torch.bool:
        t.logical_not_()
    elif t.is_floating_point():
        t.add_(1.0).mul_(1.5)
    else:
        t.add_(1)


def sabotaged(rec, fn, args, kwargs):
    """fn's call with its results made wrong."""
    ins = tensors_in([list(args), kwargs], [])
    before = [t.detach().clone() for t in ins]
    rec.depth += 1
    try:
        got = fn(*args, **kwargs)
    finally:
        rec.depth -= 1
    torch = torch_mod()
    for t, b in zip(ins, before):
        if not torch.equal(t, b):
            corrupt(t)
    for t in tensors_in(got, []):
        corrupt(t)
    if isinstance(got, (int, float)) and not isinstance(got, bool):
        got = got + 1
    return got


def kernel_callables(src, targets):
    """The kernel module's callables that the harness may call, by name:
    top-level functions that launch a target kernel directly or through
    each other (transitively), and top-level names bound to an expression
    that uses one, or uses a class whose methods do (`rmsnorm =
    RMSNorm.apply` for a torch.autograd.Function).  Returns (callables,
    kernels): kernels are the target kernels defined in the file (every
    jit-decorated one when the task names none), whose direct launches
    (`kernel[grid](...)` in a test) are recorded too."""
    tree = ast.parse(src)
    # Tests, benchmark drivers and checkers that live in the same file
    # (rocmbench; geak_eval's kernel.py often keeps run_correctness and
    # run_profile) are the harness, not the kernel: recorded as a call,
    # one would swallow every kernel call it makes.
    harness = re.compile(r"(test_|bench|run_(benchmark|correctness|profile|"
                         r"performance)$|main$|check_correctness$|evaluate$)")
    funcs, classes, binds = {}, {}, {}
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not harness.match(n.name):
                funcs[n.name] = n
        elif isinstance(n, ast.ClassDef):
            classes[n.name] = n
        elif isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                isinstance(n.targets[0], ast.Name) and \
                not harness.match(n.targets[0].id):
            binds[n.targets[0].id] = n.value

    def names_in(node):
        names = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                names.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                names.add(sub.attr)
        return names
    refs = {}
    for table in (funcs, classes, binds):
        for name, node in table.items():
            refs[name] = names_in(node)
    jitted = set()
    for name, node in funcs.items():
        for d in node.decorator_list:
            txt = ast.unparse(d) if hasattr(ast, "unparse") else ""
            if "jit" in txt or "autotune" in txt or "heuristics" in txt:
                jitted.add(name)
    goal = set(targets) | jitted
    found = set()
    changed = True
    while changed:
        changed = False
        for name, names in refs.items():
            if name in found or name in jitted:
                continue
            if names & (goal | found):
                found.add(name)
                changed = True
    kernels = [t for t in targets if t in jitted] or \
        ([] if targets else sorted(jitted))
    return sorted(found - set(classes)), kernels


# ---- seeds -----------------------------------------------------------------

class Seeds:
    """Mixes a set number into every seed the harness sets: set 0 is the
    harness's own inputs, set k > 0 a reseeded run of the same code."""

    def __init__(self, base):
        self.base = base
        self.k = 0
        self.patched = []

    def mix(self, s):
        if self.k == 0:
            return s
        return (int(s) * 1000003 + self.k * 7919 + self.base) % (2 ** 31 - 1)

    def install(self):
        torch = torch_mod()
        me = self
        for mod, name in ((torch, "manual_seed"), (random, "seed")):
            orig = getattr(mod, name)
            self.patched.append((mod, name, orig))
            setattr(mod, name, (lambda o: lambda s=None, *a, **k:
                                o(me.mix(s if s is not None else 0), *a, **k))(orig))
        if hasattr(torch, "cuda"):
            for name in ("manual_seed", "manual_seed_all"):
                orig = getattr(torch.cuda, name)
                self.patched.append((torch.cuda, name, orig))
                setattr(torch.cuda, name, (lambda o: lambda s: o(me.mix(s)))(orig))
        try:
            import numpy
            orig = numpy.random.seed
            self.patched.append((numpy.random, "seed", orig))
            numpy.random.seed = lambda s=None: orig(None if s is None
                                                     else me.mix(s))
        except ImportError:
            pass

    def set(self, k):
        self.k = k
        torch = torch_mod()
        # A harness that seeds nothing still gets distinct inputs.
        if k:
            torch.manual_seed(0)
            random.seed(0)


