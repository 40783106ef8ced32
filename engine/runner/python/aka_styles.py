"""aka_styles.py - how aka_record.py drives each AgentKernelArena harness
style (docs/aka.md): vllm (scripts/task_runner.py: run_correctness and
run_performance, with AKA's timing helpers replaced, or timed inline by
the harness itself), rocmbench (the pytest file run by pytest itself, in
this process, with its benchmarker replaced), geak_eval
(test_kernel_harness.py run as a script) and gpumode (a PyTorch module
and its functional twin, whose kernel is an extension built from a .hip
file).  The kernel module is recorded however the harness loads it (an
import, a spec from its path, pytest): every load of the kernel file gets
its callables wrapped.  Each style fills a Run: the correctness pass's
programs and verdict, the performance passes' programs per input set, and
whether the harness notices a corrupted kernel (its negative control)."""
import importlib.util
import io
import os
import re
import shlex
import sys

from aka_calls import Recorder, Seeds, Unsupported, kernel_callables


# ---- loading the task's files ------------------------------------------------

def load_path(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def hook_loads(run, kpath):
    """Every module executed from the kernel file, however the harness
    loads it (import, importlib spec, an alias it registers, pytest),
    gets its kernel callables recorded (Run.instrument)."""
    from importlib.machinery import SourceFileLoader
    real = os.path.realpath(kpath)
    orig = SourceFileLoader.exec_module

    def exec_module(loader, module):
        orig(loader, module)
        f = getattr(module, "__file__", None)
        if f and os.path.realpath(f) == real:
            run.instrument(module)
    SourceFileLoader.exec_module = exec_module


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
        # gpumode: {"functional": path, "fn": name}, the PyTorch function
        # that stands for the kernel where a bundle has no extension.
        self.gpumode = None
        self.cur_label = None
        self.cur_perf = []
        self.catches_wrong = None
        self.names, self.kernels = [], []
        # How outermost kernel calls become programs: in a correctness
        # pass (splitting) and in a performance pass the harness times
        # itself (inline), every call is a program of its own unless it
        # uses what the previous one returned; inside a replaced timing
        # helper (in_bench) the helper's program holds them all.
        self.splitting = False
        self.inline = False
        self.in_bench = False
        self.rec.on_outer = self.split

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
        self.names, self.kernels = kernel_callables(src, self.a.target)
        if not self.names and not self.kernels:
            raise Unsupported("no function of %s launches %s, and it "
                              "defines no such kernel"
                              % (os.path.relpath(path, self.a.task),
                                 ", ".join(self.a.target) or "a Triton kernel"))

    def instrument(self, mod):
        """Records the calls of mod's kernel callables and the direct
        launches of its kernels; once per module object."""
        if mod.__dict__.get("_arena_aka_recorded"):
            return
        mod._arena_aka_recorded = True
        for n in self.names:
            f = mod.__dict__.get(n)
            # A name bound to a kernel object or a table is not a call.
            if f is None or not callable(f) or hasattr(f, "__getitem__"):
                continue
            setattr(mod, n, self.rec.wrap([n], f))
        self.rec.watch_launches([(k, mod.__dict__[k]) for k in self.kernels
                                 if k in mod.__dict__])
        if self.kernel is None:
            self.kernel = mod

    def split(self, args, kwargs):
        if self.in_bench or not (self.splitting or self.inline):
            return
        rec = self.rec
        p = rec.prog
        uses_ret = p is not None and any(id(x) in p.rets
                                         for x in flat(args, kwargs))
        if p is not None and (p.calls or p.error) and not uses_ret:
            done = rec.close()
            if self.splitting:
                self.check.append(done)
        if rec.prog is None:
            rec.open("check:" + (self.cur_label or "") if self.splitting
                     else "perf")


class CaseMarks:
    """While a vllm harness's performance pass runs: each time it appends
    a case's result (a dict with execution_time_ms) to a list, the calls
    it made since the previous call of its own become that case's
    program.  This is how a harness that times its kernel itself (CUDA
    events around each call, not AKA's helpers) gives its cases: the
    last call before a result is what it timed for it."""

    def __init__(self, run):
        self.run = run
        self.by_case = {}

    def prof(self, frame, event, arg):
        if event != "c_return" or getattr(arg, "__name__", "") != "append":
            return
        lst = getattr(arg, "__self__", None)
        if type(lst) is not list or not lst:
            return
        last = lst[-1]
        if isinstance(last, dict) and "execution_time_ms" in last and \
                id(last) not in self.by_case:
            self.by_case[id(last)] = (last, self.run.rec.close())

    def __enter__(self):
        self.old = sys.getprofile()
        self.run.inline = True
        sys.setprofile(self.prof)
        return self

    def __exit__(self, *exc):
        sys.setprofile(self.old)
        self.run.inline = False
        self.run.rec.close()
        return False

    def program(self, case):
        hit = self.by_case.get(id(case))
        return hit[1] if hit is not None and hit[0] is case else None


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
    run.callables(kpath)
    hook_loads(run, kpath)
    kmod = load_path(kpath, "triton_kernel")
    run.kernel = kmod
    h = load_path(os.path.join(a.task, a.harness), "aka_harness")
    h.load_module = lambda: kmod
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
    if p is not None and p.calls:
        run.check.append(p)
    run.negative_control(check_pass)
    # A harness that times its kernel itself repeats the call its case
    # records (AKA's runners: 10 warm-up and 100 timed calls, each of
    # them snapshotted here); once each gives the same program.
    for name in ("WARMUP_ITERATIONS", "BENCHMARK_ITERATIONS"):
        if type(h.__dict__.get(name)) is int:
            h.__dict__[name] = 1
    # The performance pass: set 0, then reseeded sets.
    for k in range(a.sets):
        run.seeds.set(k)
        run.cur_perf = []
        with Capture(), CaseMarks(run) as marks:
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
            if not isinstance(c, dict):
                continue
            label = str(c.get("test_case_id") or "perf%d" % (i + 1))
            params = c.get("params") if isinstance(c.get("params"), dict) else {}
            t = c.get("execution_time_ms")
            if c.get("benchmark_method") == "arena_recorded" or t == 1.0:
                prog = next(progs, None)
            elif isinstance(t, (int, float)) and t > 0:
                prog = marks.program(c)     # timed by the harness itself
            else:
                prog = None                 # the harness's own failure mark
            got.append((label, params, prog))
        run.perf.append(got)


def bench_hook(run):
    """AKA's timing helpers, replaced: the benchmarked function is called
    once, recorded, and its "time" is a marker."""
    def bench(fn, *args, **kwargs):
        run.rec.open("perf")
        run.in_bench = True
        try:
            fn()
        except Exception:
            run.rec.close()
            raise
        finally:
            run.in_bench = False
        run.cur_perf.append(run.rec.close())
        return 1.0, {"benchmark_method": "arena_recorded"}
    return bench


# ---- rocmbench: the pytest file, run by pytest ------------------------------

def pytest_args(cmd):
    """The arguments of a `pytest ...` (or `python -m pytest ...`)
    command, without options that would take the tests out of this
    process (pytest-xdist's -n); None when it is not one."""
    import shlex
    try:
        argv = shlex.split(cmd or "")
    except ValueError:
        return None
    rest = None
    for i, w in enumerate(argv):
        if os.path.basename(w) in ("pytest", "py.test"):
            rest = argv[i + 1:]
            break
        if w == "-m" and argv[i + 1:i + 2] == ["pytest"]:
            rest = argv[i + 2:]
            break
    if rest is None:
        return None
    out, skip = [], False
    for w in rest:
        if skip:
            skip = False
        elif w in ("-n", "--numprocesses", "--dist"):
            skip = True
        elif not re.match(r"(-n\d|--numprocesses=|--dist=)", w):
            out.append(w)
    return out


class PytestDriver:
    """arena's pytest plugin for one session: records which tests ran,
    what each benchmarked, and every failure pytest reports (collection,
    fixture setup, the test, teardown)."""

    def __init__(self, run, kpath, keep=None):
        self.run = run
        self.kpath = os.path.realpath(kpath)
        self.keep = keep
        self.ran = []           # (item, excinfo or None, [(prog, params)])
        self.failures = []

    def pytest_collection_modifyitems(self, session, config, items):
        for it in items:
            mod = getattr(it, "module", None)
            if mod is not None and os.path.realpath(
                    getattr(mod, "__file__", "") or "") == self.kpath:
                self.run.instrument(mod)
                replace_benchmarkers(self.run, mod)
        if self.keep is not None:
            items[:] = [it for it in items if self.keep(it)]

    def pytest_runtest_call(self, item):
        self.run.cur_label = item.name
        self.run.cur_perf = []

    def pytest_runtest_makereport(self, item, call):
        if call.when == "call":
            self.ran.append((item, call.excinfo, list(self.run.cur_perf)))

    def pytest_runtest_logreport(self, report):
        if report.failed:
            text = (report.longreprtext or "").strip().splitlines()
            self.failures.append("%s (%s): %s" % (
                report.nodeid, report.when, (text[-1] if text else "")[:200]))

    def pytest_collectreport(self, report):
        if report.failed:
            text = (report.longreprtext or "").strip().splitlines()
            self.failures.append("collecting %s failed: %s" % (
                report.nodeid, (text[-1] if text else "")[:200]))


def replace_benchmarkers(run, mod):
    """The rocmbench benchmarker and triton's do_bench, in the test
    module: the benchmarked callable is called once, recorded."""
    class Bench:
        def __init__(self, op_callable=None, op_name=None, config=None, **kw):
            self.fn = op_callable

        def run_benchmark(self, current_params_dict=None, **kw):
            run.cur_perf.append((bench_once(run, self.fn),
                                 current_params_dict or {}))
            return {}

    def do_bench(fn, *x, **k):
        run.cur_perf.append((bench_once(run, fn), {}))
        return 1.0
    mod.PytestBenchmarker = Bench
    mod.save_all_benchmark_results = lambda *x, **k: None
    if hasattr(mod, "do_bench"):
        mod.do_bench = do_bench
    try:
        import triton.testing as tt
        tt.do_bench = do_bench
    except ImportError:
        pass


def bench_once(run, fn):
    run.rec.open("perf")
    run.in_bench = True
    try:
        fn()
    finally:
        run.in_bench = False
    return run.rec.close()


def skipped(excinfo):
    return excinfo is not None and type(excinfo.value).__name__ in (
        "Skipped", "XFailed", "SkipTest")


def rocmbench(run):
    """The test file run by pytest itself, in this process: its fixtures
    (conftest.py, the module's own, parametrized ones), parametrizations,
    pytest_generate_tests, skips and -k selections are pytest's.  The
    correctness command's selection is the correctness pass; the
    performance command's, less the tests the correctness pass ran and
    the results writer, is the performance pass (one case per
    benchmarked call)."""
    try:
        import pytest
    except ImportError:
        raise Unsupported("pytest is not installed for arena's Python "
                          "(the task's tests are pytest tests)")
    # The test's label is set before pytest's own runner calls it.
    pytest.hookimpl(tryfirst=True)(PytestDriver.pytest_runtest_call)
    a = run.a
    kpath = os.path.join(a.task, a.editable[0])
    run.callables(kpath)
    hook_loads(run, kpath)
    sys.path.insert(0, a.task)
    check_args = pytest_args(a.correctness_command) or [a.editable[0]]
    perf_args = pytest_args(a.performance_command) or [a.editable[0]]
    base = ["-p", "no:cacheprovider", "-p", "no:randomly", "--assert=plain",
            "-s", "-q", "--rootdir", a.task, "--confcutdir", a.task]

    def session(args, driver):
        with Capture():
            code = pytest.main(base + args, plugins=[driver])
        return int(code)

    check_ids = set()

    def check_pass():
        d = PytestDriver(run, kpath)
        code = session(check_args, d)
        check_ids.update(it.nodeid for it, _, _ in d.ran)
        ok = code == 0 and not d.failures
        msg = "; ".join(d.failures[:3]) or (
            None if ok else "pytest exited %d (%s)" % (
                code, "no test ran" if code == 5 else "an error"))
        return ok, msg

    run.seeds.set(0)
    run.splitting = True
    run.check_ok, run.check_msg = check_pass()
    run.splitting = False
    p = run.rec.close()
    if p is not None and p.calls:
        run.check.append(p)
    run.negative_control(check_pass)

    def keep(it):
        return it.nodeid not in check_ids and \
            not it.name.startswith("test_save_performance_results")
    for k in range(a.sets):
        run.seeds.set(k)
        d = PytestDriver(run, kpath, keep)
        session(perf_args, d)
        got = []
        for item, exc, perf in d.ran:
            if skipped(exc):
                continue
            if exc is not None:
                if k == 0:
                    run.notes.append("performance test %s raised %s"
                                     % (item.name, exc.typename))
                perf = [(None, {})]
            for prog, params in perf:
                got.append(("perf%d" % (len(got) + 1),
                            dict(params, test=item.name), prog))
        run.perf.append(got)


def geak(run):
    """kernel.py + a harness that imports it: the correctness pass over
    the harness's configurations gives the cases (its benchmark runs the
    same configurations)."""
    import runpy
    a = run.a
    kpath = os.path.join(a.task, a.editable[0])
    run.callables(kpath)
    hook_loads(run, kpath)
    sys.path.insert(0, a.task)
    modname = os.path.basename(kpath)[:-3]
    sys.modules[modname] = load_path(kpath, modname)
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
        if p is not None and p.calls:
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


# ---- gpumode: eval_tools/, a PyTorch module and its functional twin ----------

def gpumode_files(a):
    """(module file, functional file, class name) as the task's
    correctness command names them (schema 2 folders: the one .py file of
    each folder); the class is named by the .hip file, after its second
    underscore (hip_<id>_<Name>.hip), as AKA's harness names it."""
    words = shlex.split(a.correctness_command or "")

    def opt(name):
        for i, w in enumerate(words):
            if w == name and i + 1 < len(words):
                return words[i + 1]
            if w.startswith(name + "="):
                return w.split("=", 1)[1]
        return None

    def only(folder):
        d = os.path.join(a.task, folder)
        got = sorted(f for f in os.listdir(d) if f.endswith(".py")) \
            if os.path.isdir(d) else []
        if len(got) != 1:
            raise Unsupported("%s/ holds %d .py files; a gpumode folder has "
                              "one" % (folder, len(got)))
        return os.path.join(folder, got[0])

    modu = opt("--py_modu_file") or only("pytorch_code_module")
    func = opt("--py_func_file") or only("pytorch_code_functional")
    hip = opt("--hip_file") or (a.editable[0] if a.editable else "")
    name = os.path.basename(hip)
    name = name[:-4] if name.endswith(".hip") else os.path.splitext(name)[0]
    return modu, func, name.split("_", 2)[-1]


def gpumode_instance(mod, name):
    """The task's class built from get_init_inputs() as AKA's harness
    builds it: [] -> no arguments; [list, dict] -> the dict's keywords
    (the list is not passed); anything else -> positional."""
    init = mod.get_init_inputs()
    cls = getattr(mod, name, None)
    if cls is None:
        raise Unsupported("%s defines no class %s (named after the .hip "
                          "file)" % (mod.__name__, name))
    if len(init) == 0:
        return cls()
    if len(init) == 2 and isinstance(init[0], list) and isinstance(init[1], dict):
        return cls(**init[1]) if init[1] else cls()
    return cls(*init)


def canonical(key):
    return re.sub(r"[^a-z0-9]", "", key.lower())


def align_parameters(modu, func):
    """The module's weights copied into the functional twin, matched by
    name: the same name, else the same name ignoring case and
    punctuation, else the one name that ends with the other.  Returns the
    functional parameters left unmatched (the twins then compute with
    different weights, and the harness refuses the task)."""
    msd, fsd = modu.state_dict(), func.state_dict()
    mkeys = list(msd)
    used, missing = set(), []
    aligned = dict(fsd)
    for fk, fv in fsd.items():
        c = canonical(fk)
        cands = [fk] if fk in msd else \
            [k for k in mkeys if canonical(k) == c] or \
            [k for k in mkeys if canonical(k).endswith(c)] or \
            [k for k in mkeys if c.endswith(canonical(k))]
        cands = [k for k in cands if k not in used]
        if len(cands) != 1 and not (cands and fk in msd):
            missing.append(fk)
            continue
        mk = cands[0]
        if msd[mk].shape != fv.shape:
            missing.append(fk)
            continue
        aligned[fk] = msd[mk].detach().clone()
        used.add(mk)
    func.load_state_dict(aligned, strict=False)
    params = {k for k, _ in func.named_parameters()}
    return [k for k in missing if k in params]


def gpumode_reference(fmod, name, func_path):
    """The name of the twin's PyTorch function, what its forward computes
    through when no kernel is passed: `module_fn` by AKA's convention, or
    whatever module-level function the `fn` parameter of the class's
    forward defaults to (KDLoss: kd_loss_fn)."""
    import inspect
    if callable(getattr(fmod, "module_fn", None)):
        return "module_fn"
    cls = getattr(fmod, name, None)
    fn = None
    try:
        fn = inspect.signature(cls.forward).parameters["fn"].default
    except (AttributeError, KeyError, TypeError, ValueError):
        pass
    fname = getattr(fn, "__name__", None)
    if callable(fn) and fname and getattr(fmod, fname, None) is fn:
        return fname
    raise Unsupported("%s defines no module_fn, and its class %s's forward "
                      "has no fn parameter defaulting to a function of the "
                      "file" % (func_path, name))


def same_result(a, b, rtol=1e-4, atol=1e-5):
    """AKA's comparison of the module's and the twin's results."""
    import torch
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_result(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same_result(x, y) for x, y in zip(a, b))
    if torch.is_tensor(a) and torch.is_tensor(b):
        return a.shape == b.shape and bool(torch.allclose(a, b, rtol=rtol, atol=atol))
    return a == b


def gpumode(run):
    """The gpumode harness (eval_tools/correctness_check.py and
    cal_kernel_perf.py): the functional twin of the task's module calls
    its `fn` - the kernel extension's `forward` - with the module's
    weights and each input of get_inputs().  Here `fn` is the twin's own
    module_fn, recorded: its calls are the cases (the same inputs serve
    AKA's correctness and performance passes), what it returns the
    reference (module_fn by AKA's convention: gpumode_reference).  The
    kernel module of the prepared task is the extension
    the build step compiles from the editable .hip file (docs/aka.md)."""
    import copy
    import types
    import torch
    a = run.a
    modu_path, func_path, name = gpumode_files(a)
    mmod = load_path(os.path.join(a.task, modu_path), "aka_gpumode_module")
    fmod = load_path(os.path.join(a.task, func_path), "aka_gpumode_functional")
    ref = gpumode_reference(fmod, name, func_path)
    run.gpumode = {"functional": func_path, "fn": ref}
    kernel = types.SimpleNamespace(
        forward=run.rec.wrap(["forward"], getattr(fmod, ref)))
    run.kernel = kernel
    dev = "cuda" if a.device == "cuda" else "cpu"

    def models():
        torch.manual_seed(0)
        if dev == "cuda":
            torch.cuda.manual_seed_all(0)
        m = gpumode_instance(mmod, name)
        f = gpumode_instance(fmod, name)
        left = align_parameters(m, f)
        if left:
            raise Unsupported("the functional module's parameters %s match "
                              "none of the module's" % ", ".join(left[:4]))
        return m.to(dev).eval(), f.to(dev).eval()

    def inputs():
        got = mmod.get_inputs()
        if hasattr(got, "__next__"):
            return got
        return iter([got])

    def one_pass(record):
        """Module against twin over every input, as the harness checks;
        with record, each case's calls are a program."""
        m, f = models()
        progs, ok, msg = [], True, None
        for i, ins in enumerate(inputs()):
            ins = list(ins) if isinstance(ins, (list, tuple)) else [ins]
            ins = [x.to(dev) if torch.is_tensor(x) else x for x in ins]
            torch.manual_seed(1337 + i)
            want = m(*copy.deepcopy(ins))
            torch.manual_seed(1337 + i)
            if record:
                run.rec.open("case%d" % (i + 1))
            try:
                got = f(*copy.deepcopy(ins), fn=kernel.forward)
            finally:
                p = run.rec.close() if record else None
            if record:
                progs.append(("case%d" % (i + 1), {}, p))
            if ok and not same_result(want, got):
                ok, msg = False, "case %d: the module and its functional " \
                    "twin give different results" % (i + 1)
        return ok, msg, progs

    with torch.no_grad():
        run.seeds.set(0)
        run.check_ok, run.check_msg, progs = one_pass(True)
        run.negative_control(lambda: one_pass(False)[:2])
        run.perf.append(progs)
        for k in range(1, a.sets):
            run.seeds.set(k)
            run.perf.append(one_pass(True)[2])
