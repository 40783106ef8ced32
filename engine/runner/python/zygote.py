"""The Python runner's zygote: one process per controller that imports torch
and Triton once (seconds) and then starts runners in milliseconds, each a
copy of itself (docs/python.md).

    arena_runner_py.py --zygote        (fd 3: the controller's channel)

Trusted code only: the zygote never loads a kernel, never touches a GPU
(a CUDA context does not survive a fork), and exits when the controller
closes the channel.  Every runner is made by clone(CLONE_PARENT): it is
the controller's own child, not the zygote's, so the controller waits for
it, stops it, reads its CPU time and counts its threads exactly as for a
runner it forked itself.  Python's own state is carried over as os.fork()
carries it (PyOS_BeforeFork / PyOS_AfterFork_*).

Request (one JSON line, with five descriptors as SCM_RIGHTS: the control
socket, the shared memory, the kernel, /dev/null, the log):
    {"argv": [...], "env": ["NAME=value", ...], "ppid": <controller pid>,
     "cpu_s": 600, "as_bytes": 0}
argv is the runner's: [<flavour>, <lib>, <scratch>, <trusted>, <kernel>,
<entry>, (<device>)].  Reply: "pid <pid>" or "error <message>".

In the child, before anything else: its own process group, SIGKILL when
the controller dies, default signal handling, the descriptors on 0-5, the
limits and the environment the controller asked for - what the
controller's own fork does before exec (runner_client.c) - then the
runner's main (arena_runner_py.run).
"""
import ctypes
import gc
import importlib
import importlib.util
import json
import os
import resource
import signal
import socket
import sys

CLONE_PARENT = 0x00008000
PR_SET_PDEATHSIG = 1
SYS_CLONE = {"x86_64": 56, "aarch64": 220}


def clone_parent(libc):
    """clone(CLONE_PARENT | SIGCHLD) with Python's fork bookkeeping: 0 in
    the child, the child's pid in the zygote."""
    nr = SYS_CLONE.get(os.uname().machine)
    if nr is None:
        raise OSError("clone: unsupported machine %s" % os.uname().machine)
    api = ctypes.pythonapi
    api.PyOS_BeforeFork()
    # PyDLL: the GIL stays held across the call, as os.fork holds it.
    pid = libc.syscall(nr, ctypes.c_long(CLONE_PARENT | signal.SIGCHLD),
                       ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0),
                       ctypes.c_long(0))
    if pid == 0:
        api.PyOS_AfterFork_Child()
    else:
        api.PyOS_AfterFork_Parent()
    if pid < 0:
        raise OSError(ctypes.get_errno(), "clone failed")
    return pid


def fcntl_dupfd(fd):
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD, 10)


def child(libc, req, fds, run):
    """Becomes the runner; never returns."""
    try:
        os.setpgid(0, 0)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != req["ppid"]:
            os._exit(127)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        for sig in range(1, 32):
            if sig in (signal.SIGKILL, signal.SIGSTOP):
                continue
            try:
                signal.signal(sig, signal.SIG_DFL)
            except (OSError, ValueError):
                pass
        # Out of the way of 0-5 first, so that no dup2 below overwrites a
        # descriptor still to be moved.
        sock, shm, kfd, devnull, log = [fcntl_dupfd(f) for f in fds]
        for fd, to in ((devnull, 0), (log, 1), (log, 2), (sock, 3), (shm, 4),
                       (kfd, 5)):
            os.dup2(fd, to, inheritable=True)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        cpu = int(req.get("cpu_s", 600))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 10))
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        if req.get("as_bytes"):
            n = int(req["as_bytes"])
            resource.setrlimit(resource.RLIMIT_AS, (n, n))
        os.environ.clear()
        for kv in req.get("env", []):
            k, _, v = kv.partition("=")
            os.environ[k] = v
        if LEFT_TO_RUNNERS:
            sys.stderr.write("arena-runner-py: a copy of the zygote, which "
                             "left %s to the runner (its import starts "
                             "threads)\n" % ", ".join(LEFT_TO_RUNNERS))
            sys.stderr.flush()
        a = req["argv"]
        run(a[0], a[1], a[2], a[3], ["arena-runner-py"] + a[4:])
    except BaseException:  # noqa: B902 - the child must never return
        import traceback
        traceback.print_exc()
    os._exit(127)


# What each copy imports itself (import_unless_threaded), for its log.
LEFT_TO_RUNNERS = []


def thread_names():
    """{tid: name} of this process's threads, the calling one included."""
    names = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open("/proc/self/task/%s/comm" % tid) as f:
                names[tid] = f.read().strip()
        except OSError:
            names[tid] = "?"
    return names


class ThreadWatch:
    """Which start-up step of the zygote started which thread, for the
    refusal that a thread causes (a copy of a threaded process is
    refused: its locks)."""

    def __init__(self):
        self.seen = set(thread_names())
        self.started = []
        self.left = []  # modules left to the runners: their import threads

    def step(self, what):
        now = thread_names()
        new = [now[t] for t in now if t not in self.seen]
        if new:
            self.started.append("%s started %s" % (what, ", ".join(new)))
        self.seen |= set(now)

    def describe(self):
        return "; ".join(self.started) or "after its start-up"


def unless_threaded(what, fn, threads):
    """Runs fn() in the zygote, unless running it starts a thread: a child
    of the (so far single-threaded) zygote tries it first and says how
    many threads it then has.  What starts threads (an LLVM thread pool,
    say: Triton's compiler, which runners use, is not fork-safe then) is
    left to each runner, and the zygote stays a process it may copy.
    "ran" when fn ran here, "threads" when it would have started one,
    "failed" when it raised in the probe (each runner finds out itself)."""
    if len(os.listdir("/proc/self/task")) != 1:
        try:
            fn()  # no copy is made anyway
        except Exception:  # noqa: B902 - each runner finds out itself
            return "failed"
        threads.step(what)
        return "ran"
    pid = os.fork()
    if pid == 0:
        try:
            fn()
            os._exit(0 if len(os.listdir("/proc/self/task")) == 1 else 3)
        except BaseException:  # noqa: B902 - the probe only reports
            os._exit(4)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        return "threads" if code == 3 else "failed"
    try:
        fn()
    except Exception:  # noqa: B902 - a runner computes it then
        pass
    threads.step(what)
    return "ran"


def import_unless_threaded(name, threads):
    """Imports module name into the zygote unless its import starts a
    thread (unless_threaded); such a module is imported by each runner."""
    if importlib.util.find_spec(name) is None:
        return
    if unless_threaded("import " + name,
                       lambda: importlib.import_module(name),
                       threads) == "threads":
        threads.left.append(name)


def serve(argv, run, prewarm=None):
    """The zygote's loop on fd 3; prewarm() runs once before the first
    copy is made (what every runner would otherwise compute itself)."""
    threads = ThreadWatch()
    threads.left = LEFT_TO_RUNNERS
    # numpy first, when torch would load it: a thread its BLAS starts is
    # then named by its own step in a refusal.
    if importlib.util.find_spec("numpy") is not None:
        import numpy  # noqa: F401
        threads.step("import numpy")
    import torch  # noqa: F401 - the point of the zygote
    threads.step("import torch")
    import_unless_threaded("triton", threads)
    if prewarm is not None:
        unless_threaded("prewarm", prewarm, threads)
    # What the imports made is never garbage: frozen, it is out of every
    # later collection, so a runner's collection before it serves (which
    # would otherwise visit, and so copy on write, every object of torch
    # and Triton: 0.2 s a runner with torch 1.13 on the development VM)
    # touches only what the runner made itself.
    gc.collect()
    gc.freeze()
    libc = ctypes.PyDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    sock = socket.socket(fileno=3)
    sock.sendall(b"zygote %d\n" % os.getpid())
    buf = b""
    while True:
        try:
            msg, anc, _, _ = sock.recvmsg(65536, socket.CMSG_SPACE(8 * 4))
        except InterruptedError:
            continue
        if not msg:
            os._exit(0)
        fds = []
        for level, typ, data in anc:
            if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
                n = len(data) - len(data) % 4
                fds += list(memoryview(data)[:n].cast("i"))
        buf += msg
        if b"\n" not in buf:
            for fd in fds:
                os.close(fd)
            continue
        line, _, buf = buf.partition(b"\n")
        try:
            req = json.loads(line)
            if len(fds) != 5:
                raise ValueError("expected 5 descriptors, got %d" % len(fds))
            # A copy has only the calling thread: another thread's locks
            # (malloc's, an import's) would stay held in it forever.
            if len(os.listdir("/proc/self/task")) != 1:
                raise OSError("the zygote has started a thread (%s); "
                              "runners are started without it"
                              % threads.describe())
            pid = clone_parent(libc)
        except (ValueError, OSError, KeyError) as e:
            for fd in fds:
                os.close(fd)
            sock.sendall(("error %s\n" % e).replace("\n", " ").encode()
                         + b"\n")
            continue
        if pid == 0:
            sock.close()
            child(libc, req, fds, run)
        for fd in fds:
            os.close(fd)
        sock.sendall(b"pid %d\n" % pid)
