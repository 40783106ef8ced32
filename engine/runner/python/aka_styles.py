"""aka_styles.py - how aka_record.py drives each AgentKernelArena harness
style (docs/aka.md): vllm (scripts/task_runner.py: run_correctness and
run_performance with AKA's timing helpers replaced), rocmbench (the pytest
file's tests, their parametrizations, its benchmarker replaced) and
geak_eval (test_kernel_harness.py run as a script, the kernel module it
imports proxied).  Each fills a Run: the correctness pass's programs and
verdict, the performance passes' programs per input set, and whether the
harness notices a corrupted kernel (its negative control)."""
import importlib.util
import io
import os
import re
import sys
import types

from aka_calls import Recorder, Seeds, Unsupported, kernel_callables


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
        self.cur_label = None
        self.catches_wrong = None

    def negative_control(self, check_pass):
        """The harness's correctness pass once more with every kernel
        call's results corrupted: a harness that still passes checks
        nothing (or not what the kernel computes)."""
        if not self.check_ok:
            return
        self.rec.sabotage = True
        self.seeds.set(0)
        try:
            ok, _ = check_pass()
        except Unsupported:
            ok = False
        finally:
            self.rec.sabotage = False
        self.catches_wrong = not ok

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
                    label = "check:" + (run.cur_label or "")
                    if p is not None and p.calls and not uses_ret:
                        run.check.append(rec.close())
                        rec.open(label)
                    elif p is None:
                        rec.open(label)
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
    def check_pass():
        with Capture() as cap:
            try:
                ok, err = h.run_correctness()
            except Exception as e:  # noqa: B902 - the harness's own failure
                ok, err = False, "run_correctness raised %s: %s" % (
                    type(e).__name__, e)
        fails = failed_lines(cap.text())
        return bool(ok) and not fails, err or "; ".join(fails[:3]) or None

    # The correctness pass, with the harness's own seeds.
    run.seeds.set(0)
    run.splitting = True
    run.check_ok, run.check_msg = check_pass()
    run.splitting = False
    p = run.rec.close()
    if p is not None:
        run.check.append(p)
    run.negative_control(check_pass)
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

    def check_pass():
        failures = []
        with Capture():
            for n, f in tests:
                for kw, tid in param_sets(f):
                    name = "%s[%s]" % (n, tid) if tid else n
                    if not check_sel(name):
                        continue
                    run.cur_label = name
                    try:
                        call_test(n, f, kw, tid)
                    except Unsupported:
                        raise
                    except Exception as e:  # noqa: B902
                        if type(e).__name__ in ("Skipped", "SkipTest"):
                            continue
                        failures.append("%s: %s: %s" % (
                            name, type(e).__name__, str(e)[:200]))
                        return False, "; ".join(failures)
        return True, None

    run.seeds.set(0)
    run.splitting = True
    run.check_ok, run.check_msg = check_pass()
    run.splitting = False
    p = run.rec.close()
    if p is not None:
        run.check.append(p)
    run.negative_control(check_pass)
    for k in range(a.sets):
        run.seeds.set(k)
        got = []
        with Capture():
            for n, f in tests:
                for kw, tid in param_sets(f):
                    name = "%s[%s]" % (n, tid) if tid else n
                    if check_sel(name) or not perf_sel(name) or \
                            n == "test_save_performance_results":
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

    def one_pass(k, record=True):
        run.seeds.set(k)
        old = sys.argv
        sys.argv = [hpath] + (args or ["--correctness"])
        code = 0
        run.splitting = record
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

    def check_pass():
        code, text, _ = one_pass(0, record=False)
        fails = failed_lines(text)
        return code == 0 and not fails, (fails[0] if fails else None)

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
    run.negative_control(check_pass)
    run.perf.append([("case%d" % (i + 1), {}, p) for i, p in enumerate(progs)])
    for k in range(1, a.sets):
        _, _, progs = one_pass(k)
        run.perf.append([("case%d" % (i + 1), {}, p)
                         for i, p in enumerate(progs)])


