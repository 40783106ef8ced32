"""taskcheck - a Python-family task's baseline against its reference, outside
the evaluator: the quick check a task author runs before `arena eval`.

For each task it reads config.yaml and held_out.yaml, draws inputs by the
signature's `init` rules, runs the reference (reference.py, PyTorch) and the
baseline (the editable files, or baseline.files for an unimplemented task:
Triton or PyTorch modules called in-process, CUDA/HIP sources built with
nvcc and called through the kernel ABI with ctypes), poisons outputs before
every baseline call, checks that inputs are unchanged, and compares outputs
with the task's tolerance (per dtype) or exactly for integers.  With --time
it also times the baseline on the visible cases: CUDA events around one
call, each call after a 512 MiB write that flushes L2, the median of --reps.

It is not the evaluator: there is no sandbox, no separate process, no
interleaving; it only says whether a task is self-consistent and how long
its baseline takes.

Each output's line gives its largest |err| and "used": the largest
|err| / (atol + rtol |ref|) of any element, so 1 is the tolerance's edge
and a baseline near it fails on other inputs.  With --mutants, the
evaluator's precision mutant (docs/tasks.md, "Output mutants": a float
output rounded to bf16's 8 significant bits, a bf16 output to 5) is put
through the same comparison after every call the baseline passed; a
mutant that changed an output and passed everywhere makes the task fail
(its tolerance is too loose to tell a rounded result from a right one).

    python3 tests/python/taskcheck.py --device cuda --time TASKDIR...
    python3 tests/python/taskcheck.py --device cpu --emulate --small TASKDIR...

--emulate runs Triton kernels through tests/python/triton_emu.py and
CUDA/HIP ones through tests/python/cuda_emu/ (CPU emulations of what the
baselines use, built with g++); --small replaces every case with the task's small cases from
SMALL below (the visible sizes are too large for a CPU).
"""
import argparse
import ast
import atexit
import ctypes
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

DTYPES = {"f32": torch.float32, "f64": torch.float64, "f16": torch.float16,
          "bf16": torch.bfloat16, "i32": torch.int32, "i64": torch.int64,
          "u8": torch.uint8, "i8": torch.int8}
ARENA_DT = {"f32": 1, "f64": 2, "f16": 3, "bf16": 4, "i32": 5, "i64": 6,
            "u8": 7, "u32": 8, "i8": 9}
FLOATS = ("f32", "f64", "f16", "bf16")

# Small cases for a CPU check (--small): task name -> list of param maps.
# They keep the shapes' character (odd sizes, GQA ratios, several blocks)
# at sizes an emulated kernel runs in seconds.
SMALL = {
    "fused_add_rmsnorm_bf16": [dict(rows=3, cols=200), dict(rows=2, cols=1024)],
    "paged_decode_attention_bf16": [
        dict(batch=3, num_heads=8, num_kv_heads=2, head_dim=64, block_size=16,
             max_blocks=5, num_blocks=9),
        dict(batch=2, num_heads=4, num_kv_heads=4, head_dim=96, block_size=32,
             max_blocks=2, num_blocks=3)],
    "flash_prefill_causal_bf16": [
        dict(batch=1, seq=80, num_heads=4, num_kv_heads=2, head_dim=64),
        dict(batch=2, seq=1, num_heads=2, num_kv_heads=1, head_dim=96)],
    "merge_attn_states_bf16": [dict(tokens=5, num_heads=3, head_dim=128),
                               dict(tokens=2, num_heads=2, head_dim=80)],
    "w8a8_int8_gemm": [dict(m=40, n=72, k=100), dict(m=1, n=20, k=64)],
    "w4a16_gptq_gemm": [dict(m=3, n=40, k=256, group=128),
                        dict(m=17, n=7, k=128, group=32)],
    "cross_entropy_fwd_bwd_bf16": [dict(rows=3, vocab=1000), dict(rows=2, vocab=9000)],
    "moe_fused_gemm_bf16": [dict(tokens=37, topk=2, hidden=80, inter=48, experts=4)],
    "topk_softmax_gating": [dict(tokens=7, experts=60, topk=4),
                            dict(tokens=3, experts=8, topk=8)],
    "lora_expand_bf16": [dict(tokens=9, rank=16, hidden=100, num_loras=3),
                         dict(tokens=2, rank=8, hidden=300, num_loras=1)],
    "mrope_bf16": [dict(tokens=7, num_heads=4, num_kv_heads=2, head_dim=128,
                        max_pos=50, s_t=16, s_h=24, s_w=24),
                   dict(tokens=3, num_heads=2, num_kv_heads=2, head_dim=64,
                        max_pos=9, s_t=8, s_h=12, s_w=12)],
    "layernorm_fwd_bf16": [dict(rows=3, cols=300), dict(rows=2, cols=2100)],
    "rope_hf_bf16": [dict(batch=2, seq=5, num_heads=4, num_kv_heads=2, head_dim=64)],
    "linear_bias_gelu_bf16": [dict(m=20, n=40, k=72)],
    "topk_logprobs": [dict(rows=3, vocab=1000, k=5)],
    "geglu_tanh_bf16": [dict(rows=3, d=300)],
    "rmsnorm_gated_bf16": [dict(rows=3, hidden=256, group=64)],
    "kl_div_distill": [dict(rows=3, vocab=700)],
    "rmsnorm_bwd_bf16": [dict(rows=5, cols=300), dict(rows=3, cols=1500)],
    "layernorm_bwd_bf16": [dict(rows=5, cols=300), dict(rows=3, cols=1500)],
    "selective_state_update": [dict(batch=2, nheads=4, headdim=16, dstate=16, ngroups=2),
                               dict(batch=1, nheads=3, headdim=20, dstate=24, ngroups=1)],
    "causal_conv1d_fwd_bf16": [dict(batch=2, dim=5, seqlen=70, width=4),
                               dict(batch=1, dim=3, seqlen=300, width=3)],
    "moe_weighted_sum_bf16": [dict(tokens=5, topk=3, hidden=100),
                              dict(tokens=2, topk=1, hidden=600)],
    "masked_mean_pool_bf16": [dict(batch=3, seq=7, hidden=100),
                              dict(batch=2, seq=1, hidden=300)],
    "nf4_dequant_bf16": [dict(n=4, k=128), dict(n=3, k=192)],
    "embedding_bag_sum_f32": [dict(num_emb=50, dim=20, batch=7, bag=5),
                              dict(num_emb=1, dim=3, batch=1, bag=1)],
    "swiglu_oai_bf16": [dict(rows=3, d=100), dict(rows=1, d=257)],
    "image_patchify_bf16": [dict(batch=2, height=28, width=42, patch=14),
                            dict(batch=1, height=16, width=16, patch=16)],
    "bias_gelu_bwd_bf16": [dict(rows=5, n=300), dict(rows=1, n=7)],
    "jsd_loss": [dict(rows=3, vocab=700), dict(rows=1, vocab=33)],
    "rmsnorm_bf16": [dict(rows=3, cols=300)],
    "swiglu_bf16": [dict(rows=3, hidden=300)],
    "gelu_f32": [dict(n=1000), dict(n=7)],
}


# Baselines that Debian's CPU PyTorch computes differently from CUDA's, so
# that only the GPU can judge them: on the CPU their reference still runs,
# their baseline is not compared.
CPU_DIFFERS = {
    "geglu_tanh_bf16": "torch 1.13's CPU GELU on bf16 rounds inside the "
                       "formula (CUDA computes it in float32)",
}


# ---- expressions (docs/tasks.md: + - * / % with C semantics) ----------

def ev(expr, env):
    if isinstance(expr, int):
        return expr

    def go(n):
        if isinstance(n, ast.Expression):
            return go(n.body)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.Name):
            return env[n.id]
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            v = go(n.operand)
            return -v if isinstance(n.op, ast.USub) else v
        if isinstance(n, ast.BinOp):
            a, b = go(n.left), go(n.right)
            if isinstance(n.op, ast.Add):
                return a + b
            if isinstance(n.op, ast.Sub):
                return a - b
            if isinstance(n.op, ast.Mult):
                return a * b
            if isinstance(n.op, ast.Div):
                q = abs(a) // abs(b)
                return q if (a >= 0) == (b >= 0) else -q
            if isinstance(n.op, ast.Mod):
                return a - b * ev_div(a, b)
        raise ValueError("bad expression %r" % expr)
    return go(ast.parse(str(expr), mode="eval"))


def ev_div(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


# ---- tasks ---------------------------------------------------------------

class Task:
    def __init__(self, d):
        self.dir = d
        self.name = os.path.basename(d.rstrip("/"))
        self.id = os.path.relpath(d, os.path.join(ROOT, "tasks"))
        with open(os.path.join(d, "config.yaml")) as f:
            self.cfg = yaml.safe_load(f)
        self.held = []
        ho = os.path.join(d, self.cfg.get("held_out", "held_out.yaml"))
        if os.path.exists(ho):
            with open(ho) as f:
                self.held = yaml.safe_load(f)["cases"]
        self.params = self.cfg["signature"].get("params", [])
        self.args = self.cfg["signature"]["args"]
        self.lang = self.cfg["language"]
        if self.cfg.get("initial_state", "implemented") == "unimplemented":
            self.base_files = self.cfg["baseline"]["files"]
        else:
            self.base_files = self.cfg["editable"]

    def tol(self, a):
        """The output's {atol, rtol}: its own, else its dtype's, else the
        task's (task.c's task_tolerance)."""
        t = self.cfg.get("tolerance", {})
        t = a.get("tolerance") or t.get(a["dtype"], t)
        return float(t.get("atol", 0)), float(t.get("rtol", 0))

    def cost(self, env):
        c = self.cfg.get("cost", {})
        return (ev(c["bytes"], env) if "bytes" in c else 0,
                ev(c["flops"], env) if "flops" in c else 0)


def load_module(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def make_inputs(task, env, seed, device):
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    out = []
    for a in task.args:
        shape = [ev(s, env) for s in a["shape"]]
        dt = DTYPES[a["dtype"]]
        if a["io"] == "out":
            out.append(torch.empty(shape, dtype=dt, device=device))
            continue
        init = a.get("init", "normal" if a["dtype"] in FLOATS else "randint")
        if isinstance(init, str):
            init = {"dist": init}
        d = init["dist"]
        if d == "normal":
            t = torch.randn(shape, generator=g, device=device, dtype=torch.float32)
            t = t * float(init.get("std", 1)) + float(init.get("mean", 0))
        elif d == "uniform":
            lo, hi = float(init.get("low", -1)), float(init.get("high", 1))
            t = torch.rand(shape, generator=g, device=device) * (hi - lo) + lo
        elif d == "randint":
            lo = ev(init.get("low", 0), env)
            hi = ev(init.get("high", 100), env)
            t = torch.randint(lo, hi + 1, shape, generator=g, device=device,
                              dtype=torch.int64)
        elif d == "ones":
            t = torch.ones(shape, device=device)
        else:
            raise ValueError(d)
        out.append(t.to(dt))
    return out


def poison(t, pattern):
    if t.dtype.is_floating_point:
        t.fill_(float("nan"))
    else:
        t.fill_(0x5A if pattern else (-0x5B if t.dtype != torch.uint8 else 0xA5))


def compare(task, a, got, ref):
    """(elements wrong, largest |err|, largest share of the tolerance
    used) of output a."""
    dt = a["dtype"]
    if dt not in FLOATS:
        bad = got != ref
        return int(bad.sum()), 0.0, 0.0
    atol, rtol = task.tol(a)
    g, r = got.double(), ref.double()
    fin = torch.isfinite(r)
    err = (g - r).abs()
    allowed = atol + rtol * r.abs()
    bad = (~torch.isfinite(g) & fin) | (fin & (err > allowed))
    bad |= ~fin & ~((g == r) | (torch.isnan(g) & torch.isnan(r)))
    worst = float(err[fin].max()) if fin.any() else 0.0
    share = torch.where(allowed > 0, err / allowed.clamp(min=1e-300),
                        torch.where(err > 0, math.inf, 0.0))
    used = float(share[fin].max()) if fin.any() else 0.0
    return int(bad.sum()), worst, used


def precision_mutant(t):
    """The evaluator's precision mutant of a float output (mutants.c):
    bf16 keeps 4 of its 7 mantissa bits (rounded to nearest even), any
    other float dtype is rounded to bf16's precision."""
    if t.dtype == torch.bfloat16:
        h = t.view(torch.int16).to(torch.int32) & 0xFFFF
        drop = 3
        r = (h + ((1 << (drop - 1)) - 1) + ((h >> drop) & 1)) & ~((1 << drop) - 1)
        r = torch.where((h & 0x7F80) == 0x7F80, h, r & 0xFFFF)
        return r.to(torch.int16).view(torch.bfloat16)  # int16 wraps as bits
    if t.dtype == torch.float64:
        keep = ~torch.isfinite(t) | (t.abs() >= 3e38)
        return torch.where(keep, t, t.float().bfloat16().double())
    return t.float().bfloat16().float().to(t.dtype)


# ---- CUDA / HIP baselines through the kernel ABI ------------------------

class ArenaArg(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("dtype", ctypes.c_int32),
                ("rank", ctypes.c_int32), ("shape", ctypes.c_int64 * 8),
                ("numel", ctypes.c_int64)]


def emu_source(src, outdir, name):
    """The source with every `k<<<g, b, ...>>>(args)` rewritten as
    EMU_LAUNCH(k, g, b, args), for the CPU emulation (cuda_emu.h)."""
    text = open(src).read()
    out, i = [], 0
    while True:
        j = text.find("<<<", i)
        if j < 0:
            out.append(text[i:])
            break
        k = j
        while k > 0 and (text[k - 1].isalnum() or text[k - 1] == "_"):
            k -= 1
        e = text.index(">>>", j)
        depth, cfg, cur = 0, [], ""
        for ch in text[j + 3:e]:
            if ch == "," and depth == 0:
                cfg.append(cur)
                cur = ""
                continue
            depth += ch in "([{"
            depth -= ch in ")]}"
            cur += ch
        cfg.append(cur)
        p = text.index("(", e)
        out.append(text[i:k] + "EMU_LAUNCH(%s, %s, %s, " % (text[k:j], cfg[0], cfg[1]))
        i = p + 1
    path = os.path.join(outdir, name + ".cpp")
    with open(path, "w") as f:
        f.write("".join(out))
    return path


def build_so(task, src, outdir, emulate=False):
    so = os.path.join(outdir, task.id.replace("/", "_") + ".so")
    if emulate:
        cpp = emu_source(src, outdir, task.id.replace("/", "_"))
        cmd = ["g++", "-std=c++20", "-O1", "-shared", "-fPIC", "-pthread",
               "-I", os.path.join(HERE, "cuda_emu"),
               "-I", os.path.join(ROOT, "engine/include")]
        cmd += [str(f) for f in task.cfg.get("compile_flags", [])]
        return so, cmd + ["-o", so, cpp]
    cmd = ["nvcc", "-O2", "-shared", "-Xcompiler", "-fPIC", "-arch=sm_90",
           "-I", os.path.join(ROOT, "engine/include")]
    if task.lang == "hip":
        cmd[1:1] = ["-x", "cu"]
        cmd += ["-I", os.path.join(ROOT, "engine/include/arena/hip_nvidia")]
    cmd += [str(f) for f in task.cfg.get("compile_flags", [])]
    cmd += ["-o", so, src]
    return so, cmd


class CompiledLaunch:
    def __init__(self, task, so):
        self.task = task
        self.fn = ctypes.CDLL(so)[task.cfg.get("entry", "arena_launch")]
        self.fn.restype = ctypes.c_int

    def __call__(self, args, params):
        arr = (ArenaArg * len(args))()
        for i, (t, a) in enumerate(zip(args, self.task.args)):
            arr[i].data = t.data_ptr()
            arr[i].dtype = ARENA_DT[a["dtype"]]
            arr[i].rank = t.dim()
            for j, s in enumerate(t.shape):
                arr[i].shape[j] = s
            arr[i].numel = t.numel()
        p = (ctypes.c_int64 * max(1, len(params)))(*params)
        stream = (torch.cuda.current_stream().cuda_stream
                  if args[0].is_cuda else None)
        rc = self.fn(arr, len(args), p, len(params), ctypes.c_void_p(stream))
        if rc:
            raise RuntimeError("arena_launch returned %d" % rc)


# ---- one task ------------------------------------------------------------

def check_task(task, opts, log, rows):
    ref = load_module(os.path.join(task.dir, task.cfg["reference"]["file"]),
                      "ref_" + task.name)
    if task.lang in ("triton", "python"):
        base = load_module(os.path.join(task.dir, task.base_files[0]),
                           "base_" + task.name).launch
    elif task.id in opts.built:
        base = CompiledLaunch(task, opts.built[task.id])
    else:
        base = None
    if opts.device == "cpu" and task.name in CPU_DIFFERS:
        log("  %s: baseline not compared on the CPU: %s"
            % (task.id, CPU_DIFFERS[task.name]))
        base = None
    cases = ([dict(c, id="small%d" % i) for i, c in enumerate(SMALL[task.name])]
             if opts.small else
             [dict(c, vis=True) for c in task.cfg["cases"]] + task.held)
    ok = True
    mutants = {}  # output -> [calls the mutant changed it, calls it was caught]
    for c in cases:
        env = {p: c[p] for p in task.params}
        pv = [env[p] for p in task.params]
        worst, used = {}, {}
        t0 = time.time()
        for trial in range(opts.trials):
            ins = make_inputs(task, env, 1000 * trial + 17, opts.device)
            keep = [t.clone() for t in ins]
            rargs = [t.clone() for t in ins]
            for t, a in zip(rargs, task.args):
                if a["io"] == "out":
                    poison(t, 0)
            ref.launch(rargs, pv)
            if base is None:
                continue
            for t, a in zip(ins, task.args):
                if a["io"] == "out":
                    poison(t, trial & 1)
            base(ins, pv)
            if opts.device == "cuda":
                torch.cuda.synchronize()
            for i, a in enumerate(task.args):
                if a["io"] == "in":
                    if not torch.equal(ins[i], keep[i]):
                        log("  %s %s: input %s modified" % (task.id, c["id"], a["name"]))
                        ok = False
                    continue
                nbad, w, u = compare(task, a, ins[i], rargs[i])
                worst[a["name"]] = max(worst.get(a["name"], 0.0), w)
                used[a["name"]] = max(used.get(a["name"], 0.0), u)
                if nbad:
                    ok = False
                    log("  %s %s trial %d: %s: %d of %d elements wrong, max |err| %.3g"
                        % (task.id, c["id"], trial, a["name"], nbad, ins[i].numel(), w))
                elif opts.mutants and a["dtype"] in FLOATS:
                    m = precision_mutant(ins[i])
                    changed = int((m != ins[i]).sum())
                    caught = compare(task, a, m, rargs[i])[0]
                    mut = mutants.setdefault(a["name"], [0, 0])
                    mut[0] += changed > 0
                    mut[1] += caught > 0
        us = None
        if base is not None and opts.time and c.get("vis"):
            us = time_case(task, base, env, pv, opts)
        b, fl = task.cost(env)
        rows.append(dict(task=task.id, case=c["id"], visible=bool(c.get("vis")),
                         us=us, bytes=b, flops=fl, worst=worst, used=used,
                         check_s=round(time.time() - t0, 2)))
        log("  %-44s %-26s %s %s" % (task.id, c["id"],
                                    "time %.1f us" % us if us else "",
                                    errors(worst, used)))
    for name, (changed, caught) in mutants.items():
        log("  %s: precision mutant of %s changed it on %d calls, caught on %d"
            % (task.id, name, changed, caught))
        if changed and not caught:
            ok = False
            log("  %s: %s: the precision mutant passed every call: the "
                "tolerance cannot tell a rounded result from a right one"
                % (task.id, name))
    return ok


def errors(worst, used):
    """'name max|err| (used)' for each output."""
    return " ".join("%s %.2g (%.2f)" % (k, w, used.get(k, 0.0))
                    for k, w in worst.items())


def time_case(task, base, env, pv, opts):
    ins = make_inputs(task, env, 99, "cuda")
    fresh = [t.clone() for t in ins]
    flush = torch.empty(128 << 20, dtype=torch.float32, device="cuda")
    for _ in range(3):
        base(ins, pv)
    ts = []
    for _ in range(opts.reps):
        for t, f, a in zip(ins, fresh, task.args):
            if a["io"] == "inout":
                t.copy_(f)
        flush.zero_()
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        base(ins, pv)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e) * 1000.0)
    ts.sort()
    return ts[len(ts) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tasks", nargs="+")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--emulate", action="store_true")
    ap.add_argument("--small", action="store_true")
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--mutants", action="store_true",
                    help="check that the precision mutant fails every float output")
    ap.add_argument("--trials", type=int, default=2)
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--out", default=None, help="folder for table and json")
    ap.add_argument("--deadline", type=float, default=1e9,
                    help="start no task after this many seconds")
    opts = ap.parse_args()
    if opts.emulate:
        sys.path.insert(0, HERE)
        import triton_emu
        triton_emu.install()
    dirs = []
    for t in opts.tasks:
        t = t if os.path.isabs(t) else os.path.join(ROOT, t)
        if os.path.exists(os.path.join(t, "config.yaml")):
            dirs.append(t)
        else:
            for r, _, fs in sorted(os.walk(t)):
                if "config.yaml" in fs:
                    dirs.append(r)
    tasks = [Task(d) for d in sorted(dirs)]
    out = opts.out or "."
    os.makedirs(out, exist_ok=True)
    logf = open(os.path.join(out, "taskcheck.log"), "a")

    def log(s):
        print(s, flush=True)
        logf.write(s + "\n")
        logf.flush()
    # Build every compiled baseline first, in parallel.
    opts.built = {}
    procs = []
    bdir = tempfile.mkdtemp(prefix="taskcheck-")
    atexit.register(shutil.rmtree, bdir, True)  # the built baselines
    for t in tasks:
        if t.lang in ("cuda", "hip") and (opts.device == "cuda" or opts.emulate):
            so, cmd = build_so(t, os.path.join(t.dir, t.base_files[0]), bdir,
                               emulate=opts.device != "cuda")
            procs.append((t, so, subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                                  stderr=subprocess.STDOUT)))
    failed = []
    for t, so, p in procs:
        o = p.communicate()[0].decode(errors="replace")
        if p.returncode:
            log("%s: baseline does not build:\n%s" % (t.id, o))
            failed.append(t.id)
        else:
            opts.built[t.id] = so
    rows = []
    t_start = time.time()
    for t in tasks:
        if t.id in failed:
            continue
        if time.time() - t_start > opts.deadline:
            log("%s: not checked (deadline)" % t.id)
            failed.append(t.id)
            continue
        try:
            if not check_task(t, opts, log, rows):
                failed.append(t.id)
        except Exception as e:  # a broken baseline or reference: report, go on
            import traceback
            log("%s: %s\n%s" % (t.id, e, traceback.format_exc(limit=-3)))
            failed.append(t.id)
    with open(os.path.join(out, "taskcheck.json"), "w") as f:
        json.dump(rows, f, indent=1)
    table(rows, os.path.join(out, "taskcheck.txt"), failed)
    log("%d tasks, %d failed%s" % (len(tasks), len(failed),
                                   (": " + " ".join(failed)) if failed else ""))
    return 1 if failed else 0


def table(rows, path, failed):
    peak_bw, peak_bf16 = 3.4e12, 800e12
    with open(path, "w") as f:
        f.write("task | case | baseline us | GB/s | TFLOP/s | roofline us | "
                "of roofline | max err (used)\n")
        for r in rows:
            us = r["us"]
            floor = max(r["bytes"] / peak_bw, r["flops"] / peak_bf16) * 1e6
            if us:
                gbs = r["bytes"] / us / 1e3
                tfs = r["flops"] / us / 1e6
                f.write("%s | %s | %.1f%s | %.0f | %.1f | %.1f | %.0f%% | %s\n" % (
                    r["task"], r["case"], us, "" if us >= 20 else " (<20!)",
                    gbs, tfs, floor, 100 * floor / us,
                    errors(r["worst"], r.get("used", {}))))
            else:
                f.write("%s | %s | %s | | | %.1f | | %s\n" % (
                    r["task"], r["case"], "held-out" if not r["visible"] else "-",
                    floor, errors(r["worst"], r.get("used", {}))))
        f.write("failed: %s\n" % (" ".join(failed) or "none"))


if __name__ == "__main__":
    sys.exit(main())
