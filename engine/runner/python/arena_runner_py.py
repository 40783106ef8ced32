#!/usr/bin/python3
"""arena-runner-py: loads one Python kernel (a PyTorch or Triton module:
candidate, baseline or reference) and runs it on the controller's behalf.

The protocol, the order of start-up, the sandbox and every reply are the C
runners' own code (arena_runner.c, gpu/arena_runner_gpu.cpp), built as a
library (runner_embed.h) that this program loads with ctypes and hands two
functions: how to load a kernel (from the sealed memfd on fd 5, never from
a path an agent can write) and how to call it.  So a Python kernel is
served by exactly the code that serves a compiled one, and everything the
controller checks of a C runner it checks here (docs/python.md).

    arena-runner-py host <lib> <scratch|-> <trusted|-> <kernel> <entry>
    arena-runner-py gpu  <lib> <scratch|-> <trusted|-> <kernel|-> <entry|-> <device>
    arena-runner-py --query      the Python stack, as one JSON line
    arena-runner-py --zygote <host-lib> <gpu-lib|->   (see zygote.py)

started by the controller with the descriptors of runner_proto.h.  <lib> is
libarena-pyrunner-<host|cuda|fakegpu>.so, <scratch> a directory private to
this runner's role (Triton's cache and temporary files; "-": none, and then
nothing at all may be written), <trusted> Triton's cache for what this
program compiles itself before the sandbox (a warm-up kernel and Triton's
driver module), shared by every runner and never writable once candidate
code runs.

Trusted until the kernel is loaded: imports (torch, triton), the device's
runtime and Triton's driver (before the sandbox, while the device files can
still be opened), the sandbox's rules (what may be read, written and
executed).  From the load on, candidate code owns this process: the
controller believes nothing it says without checking.

A kernel is a bundle (the controller's compile step, docs/python.md):

    arena-pybundle 1
    entry <module>
    file <path> <nbytes>\\n<bytes>\\n      (one per source file)
    ext <module> <nbytes>\\n<bytes>\\n     (a compiled extension module)
    define <NAME> <value>                (tunables, -D in C)
    end

Its modules are imported from memory; an extension module (a gpumode
task's kernel, built by the controller's compile step from the editable
.hip file) is loaded from a memfd of its own, before the entry module; `<entry>` of the entry module is
called as entry(args, params): args a list of tensors (outputs written in
place), params a list of ints.  It returns None or 0 on success.
"""
import ctypes
import gc
import importlib.abc
import importlib.util
import json
import os
import struct
import sys
import time
import traceback

RP_FD_KERNEL = 5
RAISED = -0x7a5e
MAX_RANK = 8
# Source files of a bundle are shown under this directory, which never
# exists (inspect and Triton's JIT read their source through the loader).
BUNDLE_DIR = "/proc/self/arena-bundle"

# The host-side thread pools of numerical libraries, one thread each.  A
# runner computes on its device; its host side needs no pool, and a pool
# that starts when its library loads (OpenBLAS, which numpy and so torch
# load, starts one thread per core) would make the zygote a threaded
# process that it may not copy (zygote.py).  Set before any import, for
# the zygote and for a runner started without it alike (a copy of the
# zygote gets the controller's environment, so run() sets it again: torch's
# own pool starts at its first use).
CPU_POOLS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "BLIS_NUM_THREADS", "NUMEXPR_NUM_THREADS")


def limit_cpu_pools():
    for name in CPU_POOLS:
        os.environ[name] = "1"


# arena_dtype -> (torch dtype name, element bytes, typestr of the storage)
DTYPES = {
    1: ("float32", 4, "<f4"), 2: ("float64", 8, "<f8"),
    3: ("float16", 2, "<f2"), 4: ("bfloat16", 2, "<i2"),
    5: ("int32", 4, "<i4"), 6: ("int64", 8, "<i8"), 7: ("uint8", 1, "|u1"),
    8: ("int32", 4, "<i4"),	# u32: torch has no uint32 before 2.3
    9: ("int8", 1, "|i1"),
}


class ArenaArg(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32), ("shape", ctypes.c_int64 * MAX_RANK),
                ("numel", ctypes.c_int64)]


LAUNCH_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ArenaArg),
                             ctypes.c_int, ctypes.POINTER(ctypes.c_int64),
                             ctypes.c_int, ctypes.c_void_p)
LOAD_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p,
                           ctypes.c_void_p, ctypes.c_size_t)
FAILURE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_size_t)
PREPARE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                              ctypes.c_void_p, ctypes.c_size_t)
PATHS = ctypes.POINTER(ctypes.c_char_p)


class SbxFs(ctypes.Structure):
    _fields_ = [("read", PATHS), ("write", PATHS), ("exec", PATHS)]


class RunnerEmbed(ctypes.Structure):
    _fields_ = [("load", LOAD_FN), ("failure", FAILURE_FN),
                ("prepare", PREPARE_FN), ("fs", ctypes.POINTER(SbxFs)),
                ("seccomp_extra", ctypes.c_int)]


SBX_PROCS = 4


def put_c(buf, n, text):
    """Writes text NUL-terminated into the C buffer (buf, n)."""
    b = text.encode("utf-8", "replace")[: max(n - 1, 0)]
    ctypes.memmove(buf, b + b"\0", len(b) + 1)


# ---- bundles ---------------------------------------------------------------

class BundleError(Exception):
    pass


def parse_bundle(data):
    """(entry module, {path: source bytes}, {name: value}, {module: shared
    object bytes}) of a bundle."""
    pos = 0

    def line():
        nonlocal pos
        end = data.find(b"\n", pos)
        if end < 0:
            raise BundleError("truncated bundle")
        s = data[pos:end].decode("utf-8")
        pos = end + 1
        return s

    if line() != "arena-pybundle 1":
        raise BundleError("not an arena Python bundle")
    entry, files, defines, exts = None, {}, {}, {}
    while True:
        words = line().split(" ")
        if words[0] == "end":
            break
        if words[0] == "entry" and len(words) == 2:
            entry = words[1]
        elif words[0] in ("file", "ext") and len(words) == 3:
            n = int(words[2])
            if n < 0 or pos + n + 1 > len(data) or data[pos + n:pos + n + 1] != b"\n":
                raise BundleError("bad %s record for %s" % (words[0], words[1]))
            (files if words[0] == "file" else exts)[words[1]] = data[pos:pos + n]
            pos += n + 1
        elif words[0] == "define" and len(words) >= 2:
            defines[words[1]] = " ".join(words[2:])
        else:
            raise BundleError("bad bundle line " + " ".join(words)[:80])
    if not entry or not files:
        raise BundleError("bundle without entry or files")
    return entry, files, defines, exts


def load_extension(name, so):
    """An extension module from its shared object's bytes, through a memfd
    (nothing is written to the file system; the sandbox allows none)."""
    import importlib.machinery
    fd = os.memfd_create("arena-" + name, 0)
    try:
        os.write(fd, so)
        path = "/proc/self/fd/%d" % fd
        loader = importlib.machinery.ExtensionFileLoader(name, path)
        spec = importlib.util.spec_from_file_location(name, path, loader=loader)
        mod = importlib.util.module_from_spec(spec)
        loader.exec_module(mod)
    finally:
        os.close(fd)
    sys.modules[name] = mod
    return mod


def module_name(path):
    return path[:-3].replace("/", ".") if path.endswith(".py") else None


def define_value(text):
    """A define's value as the module would have written it: an int, a
    float, True/False, else the text."""
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return {"True": True, "False": False}.get(text, text)


class BundleImporter(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports the bundle's modules from memory.  First on sys.meta_path,
    for the bundle's own names only (the compile step refuses names that
    would shadow what the runner imported)."""

    def __init__(self, files):
        self.mods = {}
        for path, src in files.items():
            name = module_name(path)
            if name:
                self.mods[name] = (path, src)

    def find_spec(self, name, path=None, target=None):
        if name not in self.mods:
            return None
        return importlib.util.spec_from_loader(
            name, self, origin=os.path.join(BUNDLE_DIR, self.mods[name][0]))

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        path, src = self.mods[module.__name__]
        module.__file__ = os.path.join(BUNDLE_DIR, path)
        code = compile(src, module.__file__, "exec", dont_inherit=True)
        exec(code, module.__dict__)

    def get_source(self, name):
        return self.mods[name][1].decode("utf-8")


# ---- tensors ---------------------------------------------------------------

class LaunchClock:
    """Where a runner's launches spend their host time, with
    ARENA_PY_LAUNCH_PROFILE=1 (a diagnostic; docs/gpu.md section 6): the
    argument tensors (and how many were built rather than found in the
    cache, and of those how many as views: ArgViews), making sure torch
    is on the runner's stream, and the kernel's own call; and the objects
    the collector tracks that are still alive since the runner turned it
    off (gc.get_count()[0]: with the collector off, objects in reference
    cycles are never freed, so a count that grows with the launches is a
    leak in every launch, though cached argument lists count too).  One
    cumulative line of means on stderr, the role's log, after 16, 32, 64
    ... launches and every 1024 from then on (a runner is killed, never
    asked for a last word: its last line covers at least half its
    launches), so that a pair of processes can be compared part by part
    (tests/gpu/py_repeat.sh collects them), with the CPU the process last
    ran on: a process whose launches are slow throughout may share a core
    with another that spins."""

    @staticmethod
    def cpu():
        """The CPU this process last ran on (/proc/self/stat), or "?"."""
        try:
            with open("/proc/self/stat") as f:
                stat = f.read()
            return stat[stat.rindex(")") + 2:].split()[36]
        except (OSError, ValueError, IndexError):
            return "?"

    EVERY = 1024

    def __init__(self):
        self.n = 0
        self.built = 0
        self.viewed = 0
        self.ns = [0, 0, 0]

    def add(self, parts, built, viewed):
        self.n += 1
        self.built += built
        self.viewed += viewed
        for i, v in enumerate(parts):
            self.ns[i] += v
        n = self.n
        if (n >= 16 and n & (n - 1) == 0) or n % self.EVERY == 0:
            us = ["%.1f" % (v / self.n / 1e3) for v in self.ns]
            sys.stderr.write("arena-runner-py: launch profile: pid %d: %d "
                             "launches, %d argument lists built (%d as "
                             "views); mean us: tensors %s, stream %s, call "
                             "%s; cpu %s; gc objects %d\n"
                             % (os.getpid(), self.n, self.built, self.viewed,
                                us[0], us[1], us[2], self.cpu(),
                                gc.get_count()[0]))
            sys.stderr.flush()


class CudaArray:
    """Device memory described for torch.as_tensor (the CUDA array
    interface, version 2: no stream to wait on).  One class for the
    process: a class made per call is a reference cycle, which with the
    collector off (run()) is never freed."""
    __slots__ = ("__cuda_array_interface__",)

    def __init__(self, ptr, shape, typestr):
        self.__cuda_array_interface__ = {
            "shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
            "version": 2, "strides": None}


class ArgViews:
    """Argument tensors made cheaply, as views of the allocation each
    argument lies in.  The runner places every small argument at a new
    offset in its allocation for each sample (arena_runner_gpu.cpp,
    place_sets), so tensors cached by pointer are almost never found
    again, and making one from a raw pointer (__cuda_array_interface__,
    torch.frombuffer) costs tens of microseconds of Python, in the
    launches that the controller's clock charges (docs/gpu.md section 6):
    a pair of processes that differ in host speed then differ by 100 us
    and more a sample, enough for a false verdict.  So each allocation
    gets one uint8 tensor the first time an argument is seen in it
    (find_range(ptr) -> (base, bytes) or None: the driver's
    cuMemGetAddressRange on a GPU), one typed view of it per dtype, and
    every argument after that is one as_strided of the typed view.  An
    argument whose allocation is not known, or that is not aligned to its
    element, gets None: the caller makes it the slow way.

    A candidate can reach the whole allocation through the tensor's
    storage; it could through the raw pointer already (its process maps
    all of it), so nothing new is exposed."""

    def __init__(self, find_range, make_base):
        self.find_range = find_range    # ptr -> (base, nbytes) or None
        self.make_base = make_base      # (base, nbytes) -> uint8 tensor
        self.regions = []               # [lo, hi, uint8 tensor, {dtype: view}]
        self.strides = {}               # shape -> contiguous strides
        self.unknown = set()            # pointers find_range had no range for

    def region(self, lo, hi):
        for r in self.regions:
            if r[0] <= lo and hi <= r[1]:
                return r
        if lo in self.unknown:
            return None
        found = self.find_range(lo)
        if not found or not (found[0] <= lo and hi <= found[0] + found[1]):
            if len(self.unknown) > 4096:
                self.unknown.clear()
            self.unknown.add(lo)
            return None
        r = [found[0], found[0] + found[1],
             self.make_base(found[0], found[1]), {}]
        self.regions.append(r)
        return r

    def tensor(self, ptr, nbytes, shape, dt, esize):
        r = self.region(ptr, ptr + nbytes)
        if r is None or (ptr - r[0]) % esize:
            return None
        typed = r[3].get(dt)
        if typed is None:
            n = (r[1] - r[0]) // esize
            typed = r[2][:n * esize].view(dt)
            r[3][dt] = typed
        st = self.strides.get(shape)
        if st is None:
            acc, st = 1, []
            for d in reversed(shape):
                st.append(acc)
                acc *= max(d, 1)
            st = tuple(reversed(st))
            self.strides[shape] = st
        return typed.as_strided(shape, st, (ptr - r[0]) // esize)


class Runner:
    """One runner's state: the flavour, the kernel, the tensors made for
    its arguments, and the last thing the kernel raised."""

    def __init__(self, flavour, lib_path, scratch, trusted, device):
        self.flavour = flavour          # "host", "cuda" or "fake"
        self.lib_path = lib_path
        self.scratch = scratch
        self.trusted = trusted
        self.device = device
        self.fn = None
        self.failure = "nothing raised"
        self.cache = {}
        self.on_stream = None           # puts torch back on the stream
        self.first_launch = True
        self.built = 0                  # argument lists not found in cache
        self.viewed = 0                 # of those, made wholly of views
        self.views = None               # ArgViews, where ranges are known
        self.clock = (LaunchClock()
                      if os.environ.get("ARENA_PY_LAUNCH_PROFILE") == "1"
                      else None)
        self.torch = None
        self.keep = []                  # ctypes objects C holds pointers to

    # -- argument tensors --

    def host_tensor(self, a, shape):
        torch = self.torch
        name, size, _ = DTYPES[a.dtype]
        dt = getattr(torch, name)
        if a.numel == 0 or not a.data:
            return torch.empty(shape, dtype=dt)
        buf = (ctypes.c_char * (a.numel * size)).from_address(a.data)
        return torch.frombuffer(buf, dtype=dt).view(shape)

    def cuda_tensor(self, a, shape):
        torch = self.torch
        name, _, typestr = DTYPES[a.dtype]
        dt = getattr(torch, name)
        if a.numel == 0 or not a.data:
            return torch.empty(shape, dtype=dt, device="cuda")
        t = torch.as_tensor(CudaArray(a.data, shape, typestr), device="cuda")
        return t.view(dt) if t.dtype != dt else t

    def tensors(self, args_p, nargs):
        key = ctypes.string_at(args_p, nargs * ctypes.sizeof(ArenaArg))
        ts = self.cache.get(key)
        if ts is None:
            self.built += 1
            ts = []
            make = self.cuda_tensor if self.flavour == "cuda" else self.host_tensor
            views = self.views
            viewed = True
            for i in range(nargs):
                a = args_p[i]
                if a.dtype not in DTYPES or not 0 <= a.rank <= MAX_RANK:
                    raise ValueError("argument %d has an unknown dtype" % i)
                shape = tuple(a.shape[d] for d in range(a.rank))
                t = None
                if views is not None and a.numel > 0 and a.data:
                    name, size, _ = DTYPES[a.dtype]
                    t = views.tensor(a.data, a.numel * size, shape,
                                     getattr(self.torch, name), size)
                if t is None:
                    viewed = False
                    t = make(a, shape)
                ts.append(t)
            self.viewed += viewed
            if len(self.cache) > 4096:
                self.cache.clear()
            self.cache[key] = ts
        return list(ts)

    def host_base(self, base, nbytes):
        buf = (ctypes.c_char * nbytes).from_address(base)
        return self.torch.frombuffer(buf, dtype=self.torch.uint8)

    def cuda_base(self, base, nbytes):
        return self.torch.as_tensor(CudaArray(base, (nbytes,), "|u1"),
                                    device="cuda")

    # -- the callbacks --

    def launch(self, args_p, nargs, params_p, nparams, stream):
        try:
            clock, built, viewed = self.clock, self.built, self.viewed
            c0 = time.perf_counter_ns() if clock else 0
            ts = self.tensors(args_p, nargs)
            ps = list(struct.unpack("<%dq" % nparams,
                                    ctypes.string_at(params_p, 8 * nparams))) if nparams else []
            t0 = time.monotonic() if self.first_launch else 0
            c1 = time.perf_counter_ns() if clock else 0
            if self.on_stream is not None:
                self.on_stream()
            c2 = time.perf_counter_ns() if clock else 0
            rc = self.fn(ts, ps)
            if clock:
                c3 = time.perf_counter_ns()
                clock.add((c1 - c0, c2 - c1, c3 - c2),
                          self.built - built, self.viewed - viewed)
            if self.first_launch:
                # A correctness trial's call, never a timed one: its
                # host time is mostly Triton's JIT, if the kernel has one.
                self.first_launch = False
                sys.stderr.write("arena-runner-py: first launch %.3f s\n"
                                 % (time.monotonic() - t0))
                sys.stderr.flush()
            if rc is None:
                return 0
            if isinstance(rc, bool) or not isinstance(rc, int):
                raise TypeError("launch returned %r; it must return None or "
                                "an int" % (rc,))
            return rc if rc != RAISED else 1
        except BaseException as e:  # noqa: B902 - a kernel may raise anything
            self.failure = describe(e, "launch")
            traceback.print_exc()
            sys.stderr.flush()
            return RAISED

    def on_failure(self, buf, n):
        put_c(buf, n, self.failure)

    def load(self, path, entry, why, n):
        try:
            size = os.fstat(RP_FD_KERNEL).st_size
            data = os.pread(RP_FD_KERNEL, size, 0)
            mod_name, files, defines, exts = parse_bundle(data)
            for name, so in exts.items():
                load_extension(name, so)
            sys.meta_path.insert(0, BundleImporter(files))
            mod = importlib.import_module(mod_name)
            for k, v in defines.items():
                setattr(mod, k, define_value(v))
            name = entry.decode()
            fn = getattr(mod, name, None)
            if not callable(fn):
                raise BundleError("%s.py defines no function '%s'"
                                  % (mod_name, name))
            self.fn = fn
            cb = LAUNCH_FN(self.launch)
            self.keep.append(cb)
            return ctypes.cast(cb, ctypes.c_void_p).value
        except BaseException as e:  # noqa: B902
            traceback.print_exc()
            sys.stderr.flush()
            put_c(why, n, describe(e, "importing the kernel"))
            return None

    def prepare(self, device, stream, why, n):
        """GPU: torch's (and Triton's) view of the device, opened before
        the sandbox while the driver's files can still be opened."""
        try:
            if self.flavour == "cuda":
                prepare_cuda(self, device, stream)
            return 0
        except BaseException as e:  # noqa: B902
            traceback.print_exc()
            sys.stderr.flush()
            put_c(why, n, describe(e, "preparing torch on the device"))
            return -1


def describe(e, during):
    """One line: what was raised, and where in the bundle."""
    where = ""
    tb = e.__traceback__
    while tb is not None:
        f = tb.tb_frame.f_code.co_filename
        if f.startswith(BUNDLE_DIR + "/"):
            where = " (%s, line %d)" % (f[len(BUNDLE_DIR) + 1:], tb.tb_lineno)
        tb = tb.tb_next
    msg = str(e).replace("\n", " ")
    return ("%s raised %s: %s%s" % (during, type(e).__name__, msg, where))[:560]


def set_triton_cache(path):
    os.environ["TRITON_CACHE_DIR"] = path
    try:
        import triton
        knobs = getattr(triton, "knobs", None)
        cache = getattr(knobs, "cache", None) if knobs else None
        if cache is not None and hasattr(cache, "dir"):
            cache.dir = path
    except ImportError:
        pass


class StepClock:
    """Seconds per step of the runner's preparation, written to its log
    as one line (where a GPU runner's start-up goes: docs/python.md)."""

    def __init__(self):
        self.t = time.monotonic()
        self.steps = []

    def step(self, name):
        now = time.monotonic()
        self.steps.append("%s %.3f" % (name, now - self.t))
        self.t = now

    def report(self, what="prepared"):
        sys.stderr.write("arena-runner-py: %s: %s\n"
                         % (what, ", ".join(self.steps)))
        sys.stderr.flush()


def stream_keeper(torch, ext, handle, device):
    """What each launch calls first so that torch (and Triton, which
    asks torch) launches on the runner's stream: the stream is made
    torch's current one here, once, and put back only if something (a
    kernel that left its own stream current) moved it.  A `with
    torch.cuda.stream(...)` around every call cost two Python context
    changes a launch, inside the window the controller's clock charges;
    the check is one call that returns an int.  It changes nothing a
    kernel can do: inside its call it may use any stream it likes, and
    the ordering check (gpu_gate.h) judges what ran where."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    torch.cuda.set_stream(ext)
    if raw is None:
        return lambda: torch.cuda.set_stream(ext)

    def on_stream():
        if raw(device) != handle:
            torch.cuda.set_stream(ext)
    return on_stream


def driver_ranges(libcuda):
    """find_range for ArgViews: the allocation a device pointer lies in,
    from the driver (cuMemGetAddressRange, on the calling thread's
    context: the runner's), or None."""
    cu = ctypes.CDLL(libcuda)
    get = cu.cuMemGetAddressRange_v2
    get.restype = ctypes.c_int
    get.argtypes = [ctypes.POINTER(ctypes.c_uint64),
                    ctypes.POINTER(ctypes.c_size_t), ctypes.c_uint64]

    def find_range(ptr):
        base, size = ctypes.c_uint64(), ctypes.c_size_t()
        if get(ctypes.byref(base), ctypes.byref(size), ptr) != 0:
            return None
        return base.value, size.value
    return find_range


def fake_ranges(lib):
    """find_range for ArgViews on the fake GPU (gpu_rt_fake.h)."""
    get = lib.arena_fake_gpu_alloc_range
    get.restype = ctypes.c_int
    get.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                    ctypes.POINTER(ctypes.c_size_t)]

    def find_range(ptr):
        base, size = ctypes.c_void_p(), ctypes.c_size_t()
        if get(ptr, ctypes.byref(base), ctypes.byref(size)) != 0:
            return None
        return base.value, size.value
    return find_range


def prepare_cuda(r, device, stream):
    clock = StepClock()
    try:
        prepare_cuda_steps(r, device, stream, clock)
    finally:
        clock.report()


def prepare_cuda_steps(r, device, stream, clock):
    torch = r.torch
    torch.cuda.init()
    torch.cuda.set_device(device)
    clock.step("torch.cuda.init")
    ext = torch.cuda.ExternalStream(stream)
    r.keep.append(ext)
    r.on_stream = stream_keeper(torch, ext, stream, device)
    # One round trip through torch's runtime on the runner's stream
    # (torch's current one from here on).
    torch.empty(256, device="cuda").fill_(1.0).sum().item()
    torch.cuda.synchronize()
    clock.step("first torch op")
    # Triton's driver compiles and loads its helper module now (a C
    # compiler run, into the private cache), and learns where libcuda is,
    # so that nothing of this is left for after the sandbox.
    libcuda = None
    with open("/proc/self/maps") as f:
        for ln in f:
            p = ln.split()[-1] if ln.strip() else ""
            if "/libcuda.so" in p:
                libcuda = os.path.dirname(p)
                r.views = ArgViews(driver_ranges(p), r.cuda_base)
                break
    if libcuda:
        os.environ["TRITON_LIBCUDA_PATH"] = libcuda
    try:
        import triton
    except ImportError:
        return
    clock.step("import triton")
    if libcuda:
        knobs = getattr(triton, "knobs", None)
        nv = getattr(knobs, "nvidia", None) if knobs else None
        if nv is not None and hasattr(nv, "libcuda_path"):
            nv.libcuda_path = libcuda
    drv = triton.runtime.driver.active
    drv.get_current_device()
    getattr(drv, "utils", None)
    clock.step("triton driver")
    try:
        from warmup import arena_warm as k
        t = torch.zeros(256, device="cuda")   # on the runner's stream
        k[(1,)](t, 256, BLOCK=256)
        torch.cuda.synchronize()
    except Exception:  # noqa: B902 - Triton broken: the kernel's own JIT says how
        traceback.print_exc()
    clock.step("warm-up kernel")
    # From here on Triton writes only into the role's own directory.
    if r.scratch:
        set_triton_cache(os.path.join(r.scratch, "triton"))


# ---- the sandbox's file-system rules ---------------------------------------

def path_list(paths):
    arr = (ctypes.c_char_p * (len(paths) + 1))()
    for i, p in enumerate(paths):
        arr[i] = p.encode()
    arr[len(paths)] = None
    return arr


def readable_roots(extra):
    """What a Python runner may read: the system's programs and libraries,
    the interpreter's own trees, /proc, /sys, /dev and the few /etc files
    a process needs - not the store, the task catalogue, workspaces or
    /tmp, which is where held-out data and other runs live."""
    roots = ["/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libexec",
             "/usr/bin", "/usr/sbin", "/usr/include", "/usr/local/lib",
             "/usr/local/bin", "/usr/local/include", "/usr/local/cuda",
             "/usr/share/zoneinfo", "/lib", "/lib64", "/lib32", "/bin",
             "/sbin", "/opt/conda", "/proc", "/sys", "/dev",
             "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
             "/etc/nsswitch.conf", "/etc/passwd", "/etc/group",
             "/etc/localtime", "/etc/alternatives", "/etc/os-release",
             "/etc/host.conf", "/etc/hosts"]
    roots += [sys.prefix, sys.base_prefix, sys.exec_prefix]
    roots += [p for p in sys.path if p and os.path.isabs(p)]
    roots += list(extra)
    out = []
    for p in roots:
        for q in (p, os.path.realpath(p)):
            if os.path.exists(q) and q not in out:
                out.append(q)
    return out


_TOOLCHAIN = []


def toolchain():
    """The programs Triton's compiler runs: ptxas, the C compilers it may
    pick for its launchers (CC, gcc, clang, cc) with their own programs,
    and the dynamic loader.  Computed once (the zygote does it before it
    makes any runner)."""
    if not _TOOLCHAIN:
        _TOOLCHAIN.append(_toolchain())
    return _TOOLCHAIN[0]


def _toolchain():
    import shutil
    import subprocess
    progs = []
    # Where Triton is, without importing it: the zygote computes this and
    # may have to leave Triton's import to each runner (zygote.py).
    spec = importlib.util.find_spec("triton")
    for base in (spec.submodule_search_locations or []) if spec else []:
        for root, _, names in os.walk(os.path.join(base, "backends")):
            for nm in names:
                if nm in ("ptxas", "cuobjdump", "nvdisasm"):
                    progs.append(os.path.join(root, nm))
    for var in ("TRITON_PTXAS_PATH",):
        if os.environ.get(var):
            progs.append(os.environ[var])
    ccs = [c for c in (os.environ.get("CC"), shutil.which("gcc"),
                       shutil.which("clang"), shutil.which("cc")) if c]
    for cc in ccs:
        progs.append(cc)
        for tool in ("cc1", "as", "ld", "collect2", "lto-wrapper"):
            try:
                out = subprocess.run([cc, "-print-prog-name=" + tool],
                                     capture_output=True, text=True,
                                     timeout=10).stdout.strip()
            except (OSError, subprocess.SubprocessError):
                continue
            path = out if os.path.isabs(out) else shutil.which(out)
            if path:
                progs.append(path)
    for ld in ("/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1"):
        progs.append(ld)
    out = []
    for p in progs:
        for q in (p, os.path.realpath(p)):
            if os.path.exists(q) and q not in out:
                out.append(q)
    return out


# Triton's process-wide keys that need no device, each cached for the
# life of the process (functools.lru_cache), by Triton version: where it
# defines them.  triton_key() hashes every source of Triton's compiler and
# its libtriton library (hundreds of MiB); the NVIDIA backend's key runs
# `ptxas --version`.  A runner otherwise computes both at its first
# kernel (the warm-up: 0.5-1 s on the H200).
TRITON_KEYS = (("triton.runtime.cache", "triton_key"),
               ("triton.compiler.compiler", "triton_key"),
               ("triton.backends.nvidia.compiler", "get_ptxas_version"))


def warm_triton_keys():
    """Computes TRITON_KEYS in this process, when Triton is imported here
    (the zygote, so that every copy inherits them)."""
    if "triton" not in sys.modules:
        return
    done = set()
    for mod, name in TRITON_KEYS:
        try:
            fn = getattr(importlib.import_module(mod), name, None)
            if fn is not None and fn not in done:
                fn()
                done.add(fn)
        except Exception:  # noqa: B902 - a runner computes it then
            pass


def prewarm():
    """What the zygote computes once before its first copy."""
    toolchain()
    warm_triton_keys()


def sandbox_rules(r):
    here = os.path.dirname(os.path.realpath(__file__))
    extra = [here, os.path.realpath(r.lib_path)]
    if r.trusted:
        extra.append(r.trusted)
    write = []
    execs = []
    if r.scratch:
        extra.append(r.scratch)
        write = [r.scratch, "/dev/null"]
    if r.flavour == "cuda":
        try:
            import triton
            extra.append(os.path.dirname(os.path.realpath(triton.__file__)))
        except ImportError:
            pass
        execs = toolchain()
    fs = SbxFs(path_list(readable_roots(extra)), path_list(write),
               path_list(execs))
    r.keep.append(fs)
    return fs


# ---- main ------------------------------------------------------------------

def set_private_dirs(scratch, trusted):
    """Caches and temporary files of torch and Triton in the role's own
    directory; Triton's cache in the trusted one until the sandbox is on
    (prepare_cuda switches)."""
    if not scratch:
        return
    for sub in ("triton", "tmp", "torch"):
        os.makedirs(os.path.join(scratch, sub), exist_ok=True)
    if trusted:
        os.makedirs(trusted, exist_ok=True)
    set_triton_cache(trusted or os.path.join(scratch, "triton"))
    os.environ["TMPDIR"] = os.path.join(scratch, "tmp")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(scratch, "torch")
    os.environ["XDG_CACHE_HOME"] = os.path.join(scratch, "torch")
    os.environ["HOME"] = scratch
    import tempfile
    tempfile.tempdir = os.path.join(scratch, "tmp")


def run(flavour_arg, lib_path, scratch, trusted, argv_rest):
    """Serves as a runner: argv_rest is what the C runner's main takes
    after its name.  Returns only on a usage error."""
    clock = StepClock()
    limit_cpu_pools()
    scratch = None if scratch == "-" else scratch
    trusted = None if trusted == "-" else trusted
    set_private_dirs(scratch, trusted)
    if flavour_arg == "gpu":
        # Modules load when first used: eagerly, torch's CUDA library would
        # load thousands of kernels (seconds, gigabytes) in every runner.
        os.environ["CUDA_MODULE_LOADING"] = "LAZY"
    import torch
    if flavour_arg == "host":
        # Host kernels are single-threaded by rule (the sandbox refuses
        # a second thread); torch's pools must not try.
        torch.set_num_threads(1)
        try:
            torch.set_num_interop_threads(1)
        except RuntimeError:
            pass
        flavour = "host"
    else:
        flavour = "fake" if "fakegpu" in os.path.basename(lib_path) else "cuda"
        try:
            import triton  # noqa: F401 - imported before the sandbox
        except ImportError:
            pass
    clock.step("imports")
    r = Runner(flavour, lib_path, scratch, trusted,
               int(argv_rest[3]) if flavour_arg == "gpu" and len(argv_rest) > 3 else 0)
    r.torch = torch
    lib = ctypes.CDLL(lib_path)
    if flavour == "fake":
        r.views = ArgViews(fake_ranges(lib), r.host_base)
    clock.step("runner library")
    embed = RunnerEmbed(LOAD_FN(r.load), FAILURE_FN(r.on_failure),
                        PREPARE_FN(r.prepare), ctypes.pointer(sandbox_rules(r)),
                        0 if flavour == "host" else SBX_PROCS)
    clock.step("sandbox rules")
    r.keep.append(embed)
    argv = (ctypes.c_char_p * (len(argv_rest) + 1))()
    for i, a in enumerate(argv_rest):
        argv[i] = a.encode()
    argv[len(argv_rest)] = None
    # Collections at random moments would land in some timed calls and
    # not others; a runner lives for one evaluation.
    gc.collect()
    gc.disable()
    clock.step("gc")
    clock.report("started")
    main = lib.arena_runner_host_main if flavour_arg == "host" else lib.arena_runner_gpu_main
    main.restype = ctypes.c_int
    main.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p),
                     ctypes.POINTER(RunnerEmbed)]
    return main(len(argv_rest), argv, ctypes.byref(embed))


def query():
    """The Python stack as `arena doctor` reports it."""
    info = {"python": sys.executable, "version": sys.version.split()[0]}
    try:
        import torch
        info["torch"] = torch.__version__
        info["cuda_available"] = bool(torch.cuda.is_available())
        info["torch_cuda"] = torch.version.cuda
        if info["cuda_available"]:
            info["device"] = torch.cuda.get_device_name(0)
    except Exception as e:  # noqa: B902 - reported, not raised
        info["torch_error"] = "%s: %s" % (type(e).__name__, e)
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception as e:  # noqa: B902
        info["triton_error"] = "%s: %s" % (type(e).__name__, e)
    try:
        import numpy
        info["numpy"] = numpy.__version__
    except Exception:  # noqa: B902
        pass
    print(json.dumps(info))
    return 0


def main(argv):
    limit_cpu_pools()
    if len(argv) == 2 and argv[1] == "--query":
        return query()
    if len(argv) >= 2 and argv[1] == "--zygote":
        import zygote
        return zygote.serve(argv[2:], run, prewarm)
    if len(argv) >= 7 and argv[1] in ("host", "gpu"):
        rest = ["arena-runner-py"] + argv[5:]
        run(argv[1], argv[2], argv[3], argv[4], rest)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
