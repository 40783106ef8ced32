#!/usr/bin/python3
"""aka_record.py - prepares an AgentKernelArena task for arena's evaluator
(docs/aka.md): runs the task's own harness, from the trusted copy of the
task, on the kernel as shipped, and records what it does.

    aka_record.py --task DIR --out DIR --style vllm|rocmbench|geak_eval
                  --harness FILE --editable FILE [--editable FILE...]
                  [--target NAME...] --device cpu|cuda [--sets N] [--seed S]

Trusted code: it runs the task's files (harness, input builders,
reference, the baseline kernel) and never a candidate's.  The controller
starts it in a process of its own with a deadline (aka_prepare.c).

What it records, per case of the harness's performance pass:
  - the calls the harness makes of the kernel module (the functions of the
    editable file that launch a target kernel, directly or through each
    other), with their arguments: tensors (sizes, strides, dtypes, which
    storage they view), scalars, dtypes, devices, lists and dicts;
  - the input sets: the bytes of every storage those calls read, for the
    harness's own seeds (set 0; the correctness pass's inputs of the same
    shape come first) and for reseeded runs of the same code (torch,
    random and numpy seeds mixed with the set's number): fresh inputs that
    obey every constraint the harness's input code does;
  - what the calls change (a storage written in place is an inout
    argument) and return (outputs);
  - whether the kernel as shipped passes the harness's own correctness
    check (it must: it is the reference arena checks candidates against).

Then it replays every program through the shim (aka_shim.py) twice, on
the recorded inputs, and requires the same outputs as the harness's own
run: what the replay cannot reproduce is refused here, not discovered in a
candidate's verdict.

Writes into --out: manifest.json, sets/<case>.bin (the packed input sets),
_arena_aka.py (the shim with the programs) and copies of the task's .py
files at their paths (the bundle the runners load).  Exit 0 with
manifest.json even when the task cannot be prepared: its "error" says why
and "amd_only" whether the reason is a feature NVIDIA GPUs lack.
"""
import argparse
import ast
import contextlib
import importlib.util
import io
import json
import os
import random
import re
import shutil
import struct
import sys
import traceback
import types

MAX_PROGRAM_BYTES = 1 << 30
MAX_CASES = 60
ALIGN = 256
# AMD-only features, as the errors that name them read.
AMD_ONLY = [
    (r"fnuz|fp8e4b8|fp8e5b16", "fp8 'fnuz' types are AMD-only"),
    (r"waves_per_eu", "Triton's waves_per_eu option is AMD-only"),
    (r"No module named '?aiter", "AMD's aiter library is not installed"),
    (r"matrix_instr_nonkdim|kpack", "an AMD-only Triton option"),
    (r"No module named '?flydsl", "FlyDSL is AMD-only"),
    (r"hip_?runtime|rocm|ROCm|gfx9", "the code path needs ROCm"),
]


class Unsupported(Exception):
    pass


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


# arena dtypes for packed arguments; anything else travels as bytes (u8)
ARENA_DT = {"float32": "f32", "float64": "f64", "float16": "f16",
            "bfloat16": "bf16", "int32": "i32", "int64": "i64",
            "uint8": "u8", "int8": "i8"}


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
        self.programs = []

    def open(self, label):
        self.prog = Program(label)

    def close(self):
        p, self.prog = self.prog, None
        if p is not None and (p.calls or p.error):
            self.programs.append(p)
        return p

    def wrap(self, path, fn):
        rec = self

        def proxy(*args, **kwargs):
            p = rec.prog
            if p is None or rec.depth > 0 or p.error:
                return fn(*args, **kwargs)
            try:
                enc = {"fn": path, "args": [p.encode(a) for a in args],
                       "kwargs": {k: p.encode(v) for k, v in kwargs.items()}}
            except Unsupported as e:
                p.error = "calls %s with %s" % (".".join(path), e)
                return fn(*args, **kwargs)
            rec.depth += 1
            try:
                got = fn(*args, **kwargs)
            finally:
                rec.depth -= 1
            enc["ret"] = p.returned(got, len(p.calls), [])
            p.calls.append(enc)
            # What the program's storages hold after its latest call.
            for st in p.storages.values():
                st["after"] = st["base"].detach().clone()
            return got
        proxy.__wrapped__ = fn
        proxy.__name__ = getattr(fn, "__name__", path[-1])
        return proxy


def kernel_callables(src, targets):
    """Top-level functions of the kernel file that launch a target kernel,
    directly or through each other (transitive), by name."""
    tree = ast.parse(src)
    funcs = {n.name: n for n in tree.body
             if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    refs = {}
    for name, node in funcs.items():
        names = set()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Name):
                names.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                names.add(sub.attr)
        refs[name] = names
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
    return sorted(found)


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


# ---- loading the task's files ------------------------------------------------

def load_path(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


class KernelProxy(types.ModuleType):
    """The kernel module as the harness sees it: every attribute the
    module has, the kernel callables recorded."""

    def __init__(self, real, rec, names):
        super().__init__(real.__name__)
        self.__dict__["_real"] = real
        self.__dict__["_wrapped"] = {n: rec.wrap([n], getattr(real, n))
                                     for n in names if hasattr(real, n)}

    def __getattr__(self, name):
        w = self.__dict__["_wrapped"]
        if name in w:
            return w[name]
        return getattr(self.__dict__["_real"], name)


class Capture:
    """Output of the harness, kept for messages (and for its PASS/FAIL
    lines), while still reaching our own stderr log."""

    def __init__(self):
        self.buf = io.StringIO()

    def __enter__(self):
        self.old = sys.stdout
        sys.stdout = self.buf
        return self

    def __exit__(self, *exc):
        sys.stdout = self.old
        sys.stderr.write(self.buf.getvalue()[-20000:])
        return False

    def text(self):
        return self.buf.getvalue()


def failed_lines(text):
    """Lines where the harness says something failed (AKA only looks for
    'fail' without 'pass' anywhere; arena takes the harness at its word
    line by line)."""
    return [ln.strip() for ln in text.splitlines()
            if re.search(r"\bFAIL(ED|URE|S)?\b", ln) and "0 FAIL" not in ln]


# ---- the styles ------------------------------------------------------------

class Run:
    """One task's recording: the recorder, the seeds, what was found."""

    def __init__(self, a):
        self.a = a
        self.rec = Recorder()
        self.seeds = Seeds(a.seed)
        self.check = []         # programs of the correctness pass (set 0)
        self.perf = []          # per set: [(label, params, program|None)]
        self.check_ok = None
        self.check_msg = None
        self.notes = []
        self.kernel = None

    def callables(self, path):
        with open(path) as f:
            src = f.read()
        names = kernel_callables(src, self.a.target)
        if not names:
            raise Unsupported("no function of %s launches %s"
                              % (os.path.relpath(path, self.a.task),
                                 ", ".join(self.a.target) or "a Triton kernel"))
        return names

    def check_call_split(self):
        """In a correctness pass every outermost kernel call is a program
        of its own, unless it uses what the previous one returned."""
        rec = self.rec
        run = self
        orig_wrap = rec.wrap

        def wrap(path, fn):
            inner = orig_wrap(path, fn)

            def split(*args, **kwargs):
                if rec.depth == 0 and run.splitting:
                    p = rec.prog
                    uses_ret = p is not None and any(
                        id(x) in p.rets for x in flat(args, kwargs))
                    if p is not None and p.calls and not uses_ret:
                        run.check.append(rec.close())
                        rec.open("check")
                    elif p is None:
                        rec.open("check")
                return inner(*args, **kwargs)
            split.__wrapped__ = fn
            return split
        rec.wrap = wrap
        self.splitting = False


def flat(args, kwargs):
    out = []

    def walk(v, d=0):
        if d > 6:
            return
        if isinstance(v, (list, tuple)):
            for e in v:
                walk(e, d + 1)
        elif isinstance(v, dict):
            for e in v.values():
                walk(e, d + 1)
        else:
            out.append(v)
    walk(list(args))
    walk(kwargs)
    return out


def vllm(run):
    a = run.a
    kpath = os.path.join(a.task, a.editable[0])
    names = run.callables(kpath)
    run.check_call_split()
    kmod = load_path(kpath, "triton_kernel")
    run.kernel = kmod
    proxy = KernelProxy(kmod, run.rec, names)
    h = load_path(os.path.join(a.task, a.harness), "aka_harness")
    h.load_module = lambda: proxy
    for name in ("_benchmark_cuda_graph_or_events", "_measure_cuda_event_fallback"):
        h.__dict__[name] = bench_hook(run)
    for attr in ("run_correctness", "run_performance"):
        if not hasattr(h, attr):
            raise Unsupported("%s defines no %s()" % (a.harness, attr))
    # The correctness pass, with the harness's own seeds.
    run.seeds.set(0)
    run.splitting = True
    with Capture() as cap:
        try:
            ok, err = h.run_correctness()
        except Exception as e:  # noqa: B902 - the harness's own failure
            ok, err = False, "run_correctness raised %s: %s" % (
                type(e).__name__, e)
    run.splitting = False
    p = run.rec.close()
    if p is not None:
        run.check.append(p)
    run.check_ok = bool(ok) and not failed_lines(cap.text())
    run.check_msg = err or "; ".join(failed_lines(cap.text())[:3]) or None
    # The performance pass: set 0, then reseeded sets.
    for k in range(a.sets):
        run.seeds.set(k)
        run.cur_perf = []
        with Capture():
            try:
                cases = h.run_performance()
            except Exception as e:  # noqa: B902
                if k == 0:
                    raise Unsupported("run_performance raised %s: %s"
                                      % (type(e).__name__, e))
                run.notes.append("reseeded performance pass %d raised %s"
                                 % (k, type(e).__name__))
                continue
        progs = iter(run.cur_perf)
        got = []
        for i, c in enumerate(cases or []):
            label = str(c.get("test_case_id") or "perf%d" % (i + 1))
            params = c.get("params") if isinstance(c.get("params"), dict) else {}
            t = c.get("execution_time_ms")
            prog = next(progs, None) if t == 1.0 else None
            got.append((label, params, prog))
        run.perf.append(got)


def bench_hook(run):
    """AKA's timing helpers, replaced: the benchmarked function is called
    once, recorded, and its "time" is a marker."""
    def bench(fn, *args, **kwargs):
        run.rec.open("perf")
        try:
            fn()
        except Exception:
            run.rec.close()
            raise
        run.cur_perf.append(run.rec.close())
        return 1.0, {"benchmark_method": "arena_recorded"}
    return bench


class FakeRequest:
    class node:
        name = ""

    def __init__(self, name):
        self.node = types.SimpleNamespace(name=name)


def k_filter(expr):
    """pytest's -k expression as a predicate on a test id (names are
    substring matches; and, or, not, parentheses)."""
    if not expr:
        return lambda name: True
    toks = re.findall(r"\(|\)|[^\s()]+", expr)
    code = []
    for t in toks:
        if t in ("and", "or", "not", "(", ")"):
            code.append(t)
        else:
            code.append("(%r in name)" % t)
    src = " ".join(code)
    return lambda name: eval(src, {"__builtins__": {}}, {"name": name})  # noqa: S307


def k_expr(cmd):
    m = re.search(r"-k\s+(\"[^\"]*\"|'[^']*'|\S+)", cmd or "")
    return m.group(1).strip("\"'") if m else None


def param_sets(fn):
    """The parametrizations of a test function (pytest marks), each a
    (dict, id) pair; [] when a skip mark applies."""
    combos = [({}, [])]
    for m in reversed(getattr(fn, "pytestmark", [])):
        if m.name == "skip":
            return []
        if m.name == "skipif" and m.args and m.args[0]:
            return []
        if m.name != "parametrize":
            continue
        names, values = m.args[0], m.args[1]
        if isinstance(names, str):
            names = [n.strip() for n in names.split(",") if n.strip()]
        new = []
        for d, ids in combos:
            for v in values:
                marks = getattr(v, "marks", ())
                if any(getattr(mk, "name", "") == "skip" for mk in marks):
                    continue
                vals = getattr(v, "values", v)
                if len(names) == 1 and not hasattr(v, "values"):
                    vals = (vals,)
                d2 = dict(d)
                d2.update(zip(names, vals))
                new.append((d2, ids + ["-".join(str(x) for x in vals)]))
        combos = new
    return [(d, "-".join(ids)) for d, ids in combos]


def rocmbench(run):
    a = run.a
    kpath = os.path.join(a.task, a.editable[0])
    names = run.callables(kpath)
    run.check_call_split()
    sys.path.insert(0, a.task)
    modname = os.path.basename(kpath)[:-3]
    mod = load_path(kpath, modname)
    run.kernel = mod
    for n in names:
        setattr(mod, n, run.rec.wrap([n], getattr(mod, n)))

    class Bench:
        def __init__(self, op_callable=None, op_name=None, config=None, **kw):
            self.fn = op_callable

        def run_benchmark(self, current_params_dict=None, **kw):
            run.rec.open("perf")
            self.fn()
            run.cur_perf.append((run.rec.close(), current_params_dict or {}))
            return {}
    mod.PytestBenchmarker = Bench
    mod.save_all_benchmark_results = lambda *x, **k: None
    try:
        import triton.testing as tt

        def do_bench(fn, *x, **k):
            run.rec.open("perf")
            fn()
            run.cur_perf.append((run.rec.close(), {}))
            return 1.0
        tt.do_bench = do_bench
        if hasattr(mod, "do_bench"):
            mod.do_bench = do_bench
    except ImportError:
        pass
    check_sel = k_filter(k_expr(a.correctness_command))
    perf_sel = k_filter(k_expr(a.performance_command))
    tests = [(n, f) for n, f in vars(mod).items()
             if n.startswith("test_") and callable(f)]

    def call_test(n, f, kw, tid):
        params = {}
        import inspect
        for p in inspect.signature(f).parameters:
            if p in kw:
                params[p] = kw[p]
            elif p == "request":
                params[p] = FakeRequest("%s[%s]" % (n, tid))
            else:
                raise Unsupported("test %s needs the fixture '%s'" % (n, p))
        return f(**params)

    run.seeds.set(0)
    run.splitting = True
    failures = []
    with Capture():
        for n, f in tests:
            for kw, tid in param_sets(f):
                name = "%s[%s]" % (n, tid) if tid else n
                if not check_sel(name):
                    continue
                try:
                    call_test(n, f, kw, tid)
                except Unsupported:
                    raise
                except Exception as e:  # noqa: B902
                    if type(e).__name__ in ("Skipped", "SkipTest"):
                        continue
                    failures.append("%s: %s: %s" % (name, type(e).__name__,
                                                    str(e)[:200]))
                    break
    run.splitting = False
    p = run.rec.close()
    if p is not None:
        run.check.append(p)
    run.check_ok = not failures
    run.check_msg = "; ".join(failures[:3]) or None
    for k in range(a.sets):
        run.seeds.set(k)
        got = []
        with Capture():
            for n, f in tests:
                for kw, tid in param_sets(f):
                    name = "%s[%s]" % (n, tid) if tid else n
                    if check_sel(name) or not perf_sel(name):
                        continue
                    run.cur_perf = []
                    try:
                        call_test(n, f, kw, tid)
                    except Unsupported:
                        raise
                    except Exception as e:  # noqa: B902
                        if k == 0:
                            run.notes.append("performance test %s raised %s"
                                             % (name, type(e).__name__))
                        run.cur_perf = [(None, {})]
                    for prog, params in run.cur_perf or [(None, {})]:
                        got.append(("perf%d" % (len(got) + 1),
                                    dict(params, test=name), prog))
        run.perf.append(got)


def geak(run):
    """kernel.py + a harness that imports it: the correctness pass over
    the harness's configurations gives the cases (its benchmark runs the
    same configurations)."""
    import runpy
    a = run.a
    kpath = os.path.join(a.task, a.editable[0])
    names = run.callables(kpath)
    run.check_call_split()
    sys.path.insert(0, a.task)
    modname = os.path.basename(kpath)[:-3]
    real = load_path(kpath, modname + "_baseline")
    run.kernel = real
    proxy = KernelProxy(real, run.rec, names)
    sys.modules[modname] = proxy
    hpath = os.path.join(a.task, a.harness)
    args = [a for a in (a.correctness_command or "").split() if a.startswith("--")]

    def one_pass(k):
        run.seeds.set(k)
        old = sys.argv
        sys.argv = [hpath] + (args or ["--correctness"])
        code = 0
        run.splitting = True
        with Capture() as cap:
            try:
                runpy.run_path(hpath, run_name="__main__")
            except SystemExit as e:
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception as e:  # noqa: B902
                code = 1
                print("harness raised %s: %s" % (type(e).__name__, e))
        run.splitting = False
        sys.argv = old
        p = run.rec.close()
        progs = list(run.check)
        run.check = []
        if p is not None:
            progs.append(p)
        return code, cap.text(), progs

    code, text, progs = one_pass(0)
    fails = failed_lines(text)
    run.check_ok = code == 0 and not fails
    if code == 0 and fails:
        run.check_msg = ("the harness printed '%s' but exited 0 (AKA counts "
                         "that as a pass)" % fails[0][:160])
    elif code != 0:
        run.check_msg = "the harness exited %s: %s" % (
            code, (fails[0] if fails else text.strip()[-300:]))
    run.check = []
    run.perf.append([("case%d" % (i + 1), {}, p) for i, p in enumerate(progs)])
    for k in range(1, a.sets):
        _, _, progs = one_pass(k)
        run.perf.append([("case%d" % (i + 1), {}, p)
                         for i, p in enumerate(progs)])


# ---- from programs to arena's packed arguments ------------------------------

def regions(prog):
    """Per storage (in first-seen order): the element range its views
    cover, [lo, hi)."""
    span = {}
    for key, t in prog.views:
        lo = t.storage_offset()
        hi = lo + 1
        for s, st in zip(t.shape, t.stride()):
            if s == 0:
                hi = lo
                break
            hi += (s - 1) * st
        a, b = span.get(key, (lo, hi))
        span[key] = (min(a, lo), max(b, hi))
    return [(key, span.get(key, (0, 0))) for key in prog.order]


def signature(prog):
    """Everything of a program but its data: two programs with the same
    signature are the same case on different inputs."""
    reg = dict(regions(prog))
    sidx = {k: i for i, k in enumerate(prog.order)}
    views = []
    for key, t in prog.views:
        views.append([sidx[key], dtype_name(t.dtype), list(t.shape),
                      list(t.stride()), t.storage_offset() - reg[key][0]])
    outs = [[k, dtype_name(v.dtype) if k == "t" else type(v).__name__,
             list(v.shape) if k == "t" else []] for k, v in prog.outs]
    sizes = [[dtype_name(prog.storages[k]["dtype"]), reg[k][1] - reg[k][0]]
             for k in prog.order]
    return json.dumps([prog.calls, views, outs, sizes], sort_keys=True)


def storage_bytes(prog, key, lo, hi, which):
    t = prog.storages[key][which]
    part = t[lo:hi].contiguous()
    return part.view(torch_mod().uint8).cpu().numpy().tobytes() if part.numel() \
        else b""


def group_of(io, dt):
    kind = ARENA_DT.get(dt, "bytes")
    return (io, kind)


GROUP_ORDER = {"in": 0, "inout": 1, "out": 2}


def esize(dt):
    torch = torch_mod()
    return torch.empty((), dtype=getattr(torch, dt)).element_size()


def plan_case(prog, ios):
    """Assigns each storage and output of a program to its packed group:
    [(group, item)], item = ("s", storage index, dtype, numel) or
    ("o", out index, dtype, numel)."""
    items = []
    for i, (key, (lo, hi)) in enumerate(regions(prog)):
        dt = dtype_name(prog.storages[key]["dtype"])
        items.append((group_of(ios[i], dt), ("s", i, dt, hi - lo)))
    for i, (k, v) in enumerate(prog.outs):
        if k == "t":
            dt = dtype_name(v.dtype)
            n = v.numel()
        else:
            dt = "float64" if isinstance(v, float) else "int64"
            n = 1
        items.append((group_of("out", dt), ("o", i, dt, n)))
    return items


def layout(items):
    """Offsets within each group: in and inout regions aligned to ALIGN
    bytes (a kernel reads them directly), outputs packed tight, largest
    elements first (the shim writes them; no gap is left unwritten)."""
    groups = {}
    for g, it in items:
        groups.setdefault(g, []).append(it)
    place = {}
    sizes = {}
    for g, its in groups.items():
        io, kind = g
        if io == "out":
            its = sorted(its, key=lambda it: -esize(it[2]))
        pos = 0     # in elements of the group (bytes for "bytes")
        unit = 1 if kind == "bytes" else esize(its[0][2])
        for it in its:
            nb = it[3] * esize(it[2])
            if io != "out":
                align = max(ALIGN // unit, 1)
                pos = (pos + align - 1) // align * align
            place[(it[0], it[1])] = (g, pos)
            pos += nb // unit if kind != "bytes" else nb
        sizes[g] = max(pos, 1)
    return place, sizes


# ---- tolerances ----------------------------------------------------------------

def tolerance(text):
    """The harness's tolerance: the largest atol and rtol it writes; else
    torch.testing.assert_close's per-dtype defaults when it uses them, else
    torch.allclose's.  A floor of a few units in the last place of each
    dtype: candidates are compared with the kernel as shipped, not with
    the harness's reference, and two correct kernels may round
    differently (docs/aka.md)."""
    def biggest(key):
        vals = []
        for m in re.finditer(key + r"\s*=\s*([0-9][0-9.]*(?:[eE][-+]?\d+)?)", text):
            try:
                vals.append(float(m.group(1)))
            except ValueError:
                pass
        return max(vals) if vals else None
    atol, rtol = biggest("atol"), biggest("rtol")
    exact = "torch.equal" in text and atol is None and rtol is None and \
        "allclose" not in text and "assert_close" not in text
    if exact:
        base = {"atol": 0.0, "rtol": 0.0}
    elif atol is None and rtol is None and "assert_close" in text:
        base = None
    else:
        base = {"atol": atol if atol is not None else 1e-8,
                "rtol": rtol if rtol is not None else 1e-5}
    floors = {"f16": (1e-3, 2e-3), "bf16": (1e-2, 1.6e-2), "f32": (1e-5, 1.3e-6 * 4),
              "f64": (1e-7, 1e-7)}
    defaults = {"f16": (1e-5, 1e-3), "bf16": (1e-5, 1.6e-2), "f32": (1e-5, 1.3e-6),
                "f64": (1e-7, 1e-7)}
    per = {}
    for dt, (fa, fr) in floors.items():
        a, r = (base["atol"], base["rtol"]) if base else defaults[dt]
        if not exact:
            a, r = max(a, fa), max(r, fr)
        per[dt] = [a, r]
    return per, exact


# ---- writing the prepared task ---------------------------------------------

def build(run, out):
    a = run.a
    torch = torch_mod()
    perf0 = run.perf[0] if run.perf else []
    cases = []
    for i, (label, params, prog) in enumerate(perf0):
        if prog is None:
            run.notes.append("case %s: the kernel as shipped failed it in "
                             "the harness's own performance pass" % label)
            continue
        if prog.error:
            raise Unsupported("case %s %s" % (label, prog.error))
        if not prog.calls:
            run.notes.append("case %s calls no kernel function" % label)
            continue
        sig = signature(prog)
        sets = [p for p in run.check if p and not p.error and p.calls and
                signature(p) == sig]
        sets.append(prog)
        dropped = 0
        for k in range(1, len(run.perf)):
            other = run.perf[k][i][2] if i < len(run.perf[k]) and \
                run.perf[k][i][0] == label else None
            if other is not None and not other.error and signature(other) == sig:
                sets.append(other)
            else:
                dropped += 1
        if dropped:
            run.notes.append("case %s: %d reseeded input sets differ in shape "
                             "or scalars from the harness's own and are not "
                             "used" % (label, dropped))
        cases.append((label, params, sets))
    if not cases:
        raise Unsupported("the harness's performance pass recorded no case "
                          "(%s)" % ("; ".join(run.notes[-3:]) or "nothing ran"))
    cases = cases[:MAX_CASES]
    # Which storages each case's calls write: inout.
    plans = []
    for label, params, sets in cases:
        p0 = sets[0]
        regs = regions(p0)
        ios = []
        for si, (key, (lo, hi)) in enumerate(regs):
            changed = False
            for p in sets:
                k2 = p.order[si]
                r2 = dict(regions(p))[k2]
                b = storage_bytes(p, k2, r2[0], r2[1], "snap")
                c = storage_bytes(p, k2, r2[0], r2[1], "after")
                changed |= b != c
            ios.append("inout" if changed else "in")
        plans.append(plan_case(p0, ios))
    groups = sorted({g for items in plans for g, _ in items},
                    key=lambda g: (GROUP_ORDER[g[0]], g[1]))
    if len(groups) > 15:
        raise Unsupported("its calls need %d kinds of packed arguments "
                          "(arena takes 15)" % len(groups))
    gidx = {g: i for i, g in enumerate(groups)}
    programs, mcases = [], []
    os.makedirs(os.path.join(out, "sets"), exist_ok=True)
    for ci, ((label, params, sets), items) in enumerate(zip(cases, plans)):
        place, sizes = layout(items)
        p0 = sets[0]
        regs = regions(p0)
        views = []
        for key, t in p0.views:
            si = p0.order.index(key)
            g, pos = place[("s", si)]
            lo, hi = regs[si][1]
            dt = dtype_name(t.dtype)
            views.append({"arg": gidx[g], "off": pos, "bytes": g[1] == "bytes",
                          "nbytes": (hi - lo) * t.element_size(), "dtype": dt,
                          "size": list(t.shape), "stride": list(t.stride()),
                          "voff": t.storage_offset() - lo})
        outs = []
        for oi, (k, v) in enumerate(p0.outs):
            g, pos = place[("o", oi)]
            dt = dtype_name(v.dtype) if k == "t" else \
                ("float64" if isinstance(v, float) else "int64")
            n = v.numel() if k == "t" else 1
            outs.append({"arg": gidx[g], "off": pos, "bytes": g[1] == "bytes",
                         "numel": n, "nbytes": n * esize(dt), "dtype": dt,
                         "shape": list(v.shape) if k == "t" else []})
        numel = [sizes.get(g, 1) for g in groups]
        gaps = [[gidx[g], 0, 1] for g in groups
                if g[0] == "out" and g not in sizes]
        programs.append({"calls": p0.calls, "views": views, "outs": outs,
                         "gaps": gaps})
        # The input sets: every in/inout group's bytes, in group order.
        ident = "c%d" % ci
        path = os.path.join(out, "sets", ident + ".bin")
        with open(path, "wb") as f:
            for p in sets:
                regs_p = regions(p)
                for g in groups:
                    if g[0] == "out":
                        continue
                    unit = 1 if g[1] == "bytes" else esize_of_group(g)
                    buf = bytearray(numel[gidx[g]] * unit)
                    for si, (key, (lo, hi)) in enumerate(regs_p):
                        if ("s", si) in place and place[("s", si)][0] == g:
                            pos = place[("s", si)][1] * (1 if g[1] == "bytes" else unit)
                            b = storage_bytes(p, key, lo, hi, "snap")
                            buf[pos:pos + len(b)] = b
                    f.write(bytes(buf))
        mcases.append({"id": safe_id(label, ci), "aka_id": label,
                       "params": jsonable(params), "numel": numel,
                       "nsets": len(sets), "sets": "sets/%s.bin" % ident,
                       "from_check": sum(1 for p in sets if p.label == "check")})
    return groups, programs, mcases


def esize_of_group(g):
    return {"f32": 4, "f64": 8, "f16": 2, "bf16": 2, "i32": 4, "i64": 8,
            "u8": 1, "i8": 1}[g[1]]


def safe_id(label, i):
    s = re.sub(r"[^A-Za-z0-9_.-]", "_", str(label))[:60]
    return s or "case%d" % (i + 1)


def jsonable(v):
    try:
        json.dumps(v)
        return v
    except (TypeError, ValueError):
        return {str(k): repr(x) for k, x in v.items()} if isinstance(v, dict) else repr(v)


def write_shim(out, programs, kernel_path, device):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "aka_shim.py")) as f:
        src = f.read()
    src += ("\n\n# ---- recorded by aka_record.py ----\n"
            "KERNEL_MODULE = %r\nDEVICE = %r\n"
            "PROGRAMS = __import__('json').loads(%r)\n"
            % (kernel_path, device, json.dumps(programs, separators=(",", ":"))))
    with open(os.path.join(out, "_arena_aka.py"), "w") as f:
        f.write(src)
    return src


# ---- replay: the shim must reproduce the harness's own run -----------------

def packed(run, groups, mcase, set_bytes, device):
    torch = torch_mod()
    args = []
    pos = 0
    for gi, g in enumerate(groups):
        n = mcase["numel"][gi]
        kind = g[1]
        dt = getattr(torch, {"f32": "float32", "f64": "float64", "f16": "float16",
                             "bf16": "bfloat16", "i32": "int32", "i64": "int64",
                             "u8": "uint8", "i8": "int8", "bytes": "uint8"}[kind])
        unit = torch.empty((), dtype=dt).element_size()
        if g[0] == "out":
            t = torch.empty(n, dtype=dt, device=device)
            if t.is_floating_point():
                t.fill_(float("nan"))
            else:
                t.fill_(0x5a if unit == 1 else -0x5a5a)
        else:
            raw = set_bytes[pos:pos + n * unit]
            pos += n * unit
            t = torch.frombuffer(bytearray(raw), dtype=torch.uint8).view(dt) \
                .to(device) if n * unit else torch.empty(0, dtype=dt, device=device)
        args.append(t)
    return args


def close_enough(got, want, per_tol, exact):
    torch = torch_mod()
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    if not got.is_floating_point() or exact:
        return bool(torch.equal(got.cpu(), want.cpu()))
    key = {torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
           torch.float64: "f64"}.get(got.dtype, "f32")
    atol, rtol = per_tol[key]
    g, w = got.double().cpu(), want.double().cpu()
    nan_ok = torch.equal(torch.isnan(g), torch.isnan(w))
    g = torch.nan_to_num(g, nan=0.0)
    w = torch.nan_to_num(w, nan=0.0)
    return nan_ok and bool(((g - w).abs() <= atol + rtol * w.abs()).all())


def replay(run, shim, groups, programs, mcases, cases_sets, per_tol, exact, out):
    torch = torch_mod()
    device = "cuda" if run.a.device == "cuda" else "cpu"
    shim._module = run.kernel
    for ci, mc in enumerate(mcases):
        with open(os.path.join(out, mc["sets"]), "rb") as f:
            data = f.read()
        set_len = len(data) // mc["nsets"]
        p0 = cases_sets[ci][0]
        results = []
        for attempt in range(2):
            args = packed(run, groups, mc, data[:set_len], device)
            shim._cache.clear()
            try:
                shim.launch(args, [ci])
            except Exception as e:  # noqa: B902
                raise Unsupported("case %s: replaying its calls raised %s: %s"
                                  % (mc["aka_id"], type(e).__name__, e))
            if device == "cuda":
                torch.cuda.synchronize()
            results.append([a.clone() for a in args])
        prog = programs[ci]
        # Outputs: as the harness's own call returned them.
        for oi, o in enumerate(prog["outs"]):
            kind, want = p0.outs[oi]
            got = results[0][o["arg"]]
            got = got.narrow(0, o["off"], o["nbytes"]).view(getattr(torch, o["dtype"])) \
                if o["bytes"] else got.narrow(0, o["off"], o["numel"])
            if kind == "t":
                want_t = want.reshape(-1).to(got.device)
            else:
                want_t = torch.tensor([want], dtype=got.dtype, device=got.device)
            if not close_enough(got, want_t, per_tol, exact):
                raise Unsupported("case %s: replayed, the kernel returns other "
                                  "values than in the harness's own run (output "
                                  "%d): its result depends on more than its "
                                  "arguments" % (mc["aka_id"], oi))
        # Storages written in place: as after the harness's own call.
        regs = regions(p0)
        for vi, v in enumerate(prog["views"]):
            pass
        for si, (key, (lo, hi)) in enumerate(regs):
            g = None
            for vi, (vkey, t) in enumerate(p0.views):
                if vkey == key:
                    g = prog["views"][vi]
                    break
            if g is None or groups[g["arg"]][0] != "inout":
                continue
            base = results[0][g["arg"]]
            dt = getattr(torch, g["dtype"])
            region = base.narrow(0, g["off"], g["nbytes"]).view(dt) if g["bytes"] \
                else base.narrow(0, g["off"], hi - lo)
            want = p0.storages[key]["after"][lo:hi].to(region.device)
            if not close_enough(region, want, per_tol, exact):
                raise Unsupported("case %s: replayed, the kernel writes other "
                                  "values into an argument than in the "
                                  "harness's own run" % mc["aka_id"])
        for gi, (a1, a2) in enumerate(zip(*results)):
            if groups[gi][0] == "in":
                continue
            if not close_enough(a1, a2, per_tol, exact):
                raise Unsupported("case %s: the kernel as shipped gives "
                                  "different results on the same inputs from "
                                  "one call to the next (beyond the task's "
                                  "tolerance): arena cannot check candidates "
                                  "against it" % mc["aka_id"])


# ---- main --------------------------------------------------------------------

def amd_only(text):
    for pat, why in AMD_ONLY:
        if text and re.search(pat, text):
            return why
    return None


def copy_sources(a, out):
    """The task's .py files at their paths: the bundle's modules."""
    for root, dirs, files in os.walk(a.task):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in
                   ("build", "__pycache__")]
        for f in files:
            if not f.endswith(".py"):
                continue
            src = os.path.join(root, f)
            rel = os.path.relpath(src, a.task)
            if rel.count("/") > 3 or os.path.getsize(src) > (1 << 20):
                continue
            dst = os.path.join(out, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--task", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--style", required=True)
    ap.add_argument("--harness", required=True)
    ap.add_argument("--editable", action="append", default=[])
    ap.add_argument("--target", action="append", default=[])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--sets", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--correctness-command", dest="correctness_command", default="")
    ap.add_argument("--performance-command", dest="performance_command", default="")
    a = ap.parse_args(argv)
    a.task = os.path.realpath(a.task)
    a.sets = max(1, min(a.sets, 64))
    os.makedirs(a.out, exist_ok=True)
    manifest = {"version": 1, "style": a.style, "device": a.device,
                "kernel": a.editable[0] if a.editable else None}
    run = None
    try:
        import torch
        manifest["torch"] = torch.__version__
        if a.device == "cuda":
            torch.cuda.init()
        os.chdir(a.task)
        sys.path.insert(0, a.task)
        run = Run(a)
        run.seeds.install()
        {"vllm": vllm, "rocmbench": rocmbench, "geak_eval": geak}[a.style](run)
        per_tol, exact = tolerance(open(os.path.join(a.task, a.harness)).read())
        manifest["check"] = {"passed": bool(run.check_ok), "message": run.check_msg}
        if not run.check_ok:
            why = amd_only(run.check_msg or "")
            manifest["error"] = ("the kernel as shipped fails the task's own "
                                 "correctness check: %s" % (run.check_msg or
                                                            "no reason given"))
            manifest["amd_only"] = why
        else:
            groups, programs, mcases = build(run, a.out)
            src = write_shim(a.out, programs, a.editable[0], a.device)
            shim = types.ModuleType("_arena_aka_replay")
            exec(compile(src, "_arena_aka.py", "exec"), shim.__dict__)
            cases_sets = []
            perf0 = [c for c in run.perf[0] if c[2] is not None and c[2].calls]
            for label, params, prog in perf0[:len(mcases)]:
                sig = signature(prog)
                sets = [p for p in run.check if p and not p.error and p.calls
                        and signature(p) == sig] + [prog]
                cases_sets.append(sets)
            replay(run, shim, groups, programs, mcases, cases_sets, per_tol,
                   exact, a.out)
            copy_sources(a, a.out)
            manifest["args"] = [{"name": "%s_%s" % g, "io": g[0],
                                 "dtype": "u8" if g[1] == "bytes" else g[1],
                                 "bytes": g[1] == "bytes"} for g in groups]
            manifest["cases"] = mcases
            manifest["tolerance"] = per_tol
            manifest["exact"] = exact
    except Unsupported as e:
        manifest["error"] = "arena cannot record this task's calls: %s" % e
        manifest["amd_only"] = amd_only(str(e))
    except Exception as e:  # noqa: B902 - the task's code failed
        tb = traceback.format_exc()
        sys.stderr.write(tb)
        manifest["error"] = "preparing the task failed: %s: %s" % (
            type(e).__name__, str(e)[:400])
        manifest["amd_only"] = amd_only(str(e) + tb[-2000:])
    if run is not None:
        manifest["notes"] = run.notes[:20]
    with open(os.path.join(a.out, "manifest.json.tmp"), "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(os.path.join(a.out, "manifest.json.tmp"),
               os.path.join(a.out, "manifest.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
