"""aka_pack.py - from recorded programs to arena's packed arguments
(docs/aka.md): which storage is an input and which is written in place,
one flat argument per (io, dtype), the input-set files, the tolerance the
harness states, the shim with the programs, and the replay that must
reproduce the harness's own run.  Trusted code, run by aka_record.py."""
import json
import os
import re

from aka_calls import TaskFault, Unsupported, dtype_name, torch_mod

ALIGN = 256
MAX_CASES = 60
# The bytes of every case's input sets together: aka_prepare.c holds a
# task's sets in memory, at most 4 GiB.
SETS_BUDGET = 3 << 30
# The module name a gpumode task's kernel extension is built and loaded
# under (TORCH_EXTENSION_NAME; pybuild.c, arena_runner_py.py).
EXTENSION_NAME = "arena_ext"
# arena dtypes for packed arguments; anything else travels as bytes (u8)
ARENA_DT = {"float32": "f32", "float64": "f64", "float16": "f16",
            "bfloat16": "bf16", "int32": "i32", "int64": "i64",
            "uint8": "u8", "int8": "i8"}


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


# scratch: a gpumode kernel's argument, which it may overwrite (AKA's
# harness passes it copies and compares only what the kernel returns):
# staged fresh before every call like an inout, never compared.
GROUP_ORDER = {"in": 0, "inout": 1, "scratch": 2, "out": 3}


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
    # The correctness pass's other calls (shapes the harness checks but
    # does not time): checked by arena too, not timed.
    seen = {signature(c[2][-1]) for c in cases}
    for p in run.check:
        if not p or p.error or not p.calls:
            continue
        sig = signature(p)
        if sig in seen:
            continue
        seen.add(sig)
        label = p.label[6:] if p.label.startswith("check:") else ""
        cases.append((label or "check%d" % (len(cases) + 1),
                      {"check_only": True}, [p]))
    cases = cases[:MAX_CASES]
    trim_sets(run, cases)
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
            ios.append("scratch" if run.gpumode else
                       "inout" if changed else "in")
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
        cid = safe_id(label, ci)
        if any(m["id"] == cid for m in mcases):
            cid = "%s.%d" % (cid[:56], ci + 1)
        mcases.append({"id": cid, "aka_id": label,
                       "check_only": bool(params.get("check_only")),
                       "params": jsonable(params), "numel": numel,
                       "nsets": len(sets), "sets": "sets/%s.bin" % ident,
                       "from_check": sum(1 for p in sets if p.label == "check")})
    return groups, programs, mcases, [c[2] for c in cases]


def set_bytes(prog):
    """The bytes of one input set of a program's case."""
    return sum((hi - lo) * prog.storages[k]["base"].element_size()
               for k, (lo, hi) in regions(prog))


def trim_sets(run, cases):
    """Fewer input sets where all of them would not fit SETS_BUDGET: the
    reseeded sets (last in each case's list) of the largest cases go
    first, down to two per case, then to one."""
    sizes = [set_bytes(c[2][0]) for c in cases]

    def total():
        return sum(len(c[2]) * n for c, n in zip(cases, sizes))
    before = [len(c[2]) for c in cases]
    for floor in (2, 1):
        while total() > SETS_BUDGET:
            big = [i for i, c in enumerate(cases) if len(c[2]) > floor]
            if not big:
                break
            cases[max(big, key=lambda i: sizes[i])][2].pop()
    if total() > SETS_BUDGET:
        raise Unsupported("its cases' inputs take %.1f GiB even with one "
                          "input set each (arena holds at most %d GiB)"
                          % (total() / 2 ** 30, SETS_BUDGET >> 30))
    for c, n in zip(cases, before):
        if len(c[2]) < n:
            run.notes.append("case %s: %d input sets of %d kept (%.0f MiB "
                             "each; every case's sets fit %d GiB)"
                             % (c[0], len(c[2]), n, set_bytes(c[2][0]) / 2 ** 20,
                                SETS_BUDGET >> 30))


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


def write_shim(out, programs, kernel_path, device, gpumode=None):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "aka_shim.py")) as f:
        src = f.read()
    src += ("\n\n# ---- recorded by aka_record.py ----\n"
            "KERNEL_MODULE = %r\nDEVICE = %r\n"
            "PROGRAMS = __import__('json').loads(%r)\n"
            % (kernel_path, device, json.dumps(programs, separators=(",", ":"))))
    if gpumode:
        src += "EXTENSION = %r\nFALLBACK = (%r, %r)\n" % (
            EXTENSION_NAME, gpumode["functional"], gpumode["fn"])
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


def results_agree(groups, got, want, per_tol, exact):
    """Whether every output and in-place argument of got (packed
    arguments after a call) is within the task's tolerance of want's."""
    return all(close_enough(g, w, per_tol, exact)
               for gi, (g, w) in enumerate(zip(got, want))
               if groups[gi][0] not in ("in", "scratch"))


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
    """Checks that the recorded calls reproduce the harness's run (see
    the module's checks); returns why the task's inputs must be replayed
    as recorded (moved_inputs_refused), or None."""
    torch = torch_mod()
    verbatim = None
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
        if not results_agree(groups, results[0], results[1], per_tol, exact):
            raise Unsupported("case %s: the kernel as shipped gives "
                              "different results on the same inputs from "
                              "one call to the next (beyond the task's "
                              "tolerance): arena cannot check candidates "
                              "against it" % mc["aka_id"])
        if mc["nsets"] >= 2:
            same_buffers(run, shim, groups, mc, ci, args,
                         data[set_len:2 * set_len], device, per_tol, exact)
        if verbatim is None:
            verbatim = moved_inputs_refused(
                run, shim, groups, mc, ci,
                data[set_len:2 * set_len] if mc["nsets"] >= 2 else
                data[:set_len], device)
    return verbatim


def moved_inputs_refused(run, shim, groups, mc, ci, set_bytes, device):
    """Why the kernel as shipped cannot take its floating-point inputs
    moved as arena moves them (aka_jitter.c: each argument by a factor in
    [1/1.4, 1.4], each element by one in [7/8, 9/8] on top), or None when
    it can: it must not raise, and every output finite on the recorded
    values must stay finite.  A task it refuses is replayed verbatim."""
    torch = torch_mod()
    plain = packed(run, groups, mc, set_bytes, device)
    moved = packed(run, groups, mc, set_bytes, device)
    gen = torch.Generator().manual_seed(1 + ci)
    for gi, t in enumerate(moved):
        if groups[gi][0] == "out" or groups[gi][1] not in ("f32", "f64", "f16",
                                                           "bf16"):
            continue
        s = 1.4 ** (2 * torch.rand(1, generator=gen).item() - 1)
        d = (2 * torch.rand(t.numel(), generator=gen, dtype=torch.float64)
             - 1) * 0.125
        t.copy_((t.double() * s * (1 + d.to(t.device))).to(t.dtype))
    try:
        shim.launch(plain, [ci])
        shim.launch(moved, [ci])
    except Exception as e:  # noqa: B902
        return ("case %s: with its floating-point inputs moved by up to "
                "an eighth, the kernel as shipped raised %s: %s"
                % (mc["aka_id"], type(e).__name__, str(e)[:200]))
    if device == "cuda":
        torch.cuda.synchronize()
    for gi, (a, b) in enumerate(zip(plain, moved)):
        if groups[gi][0] in ("in", "scratch") or not a.is_floating_point():
            continue
        if bool((torch.isfinite(a) & ~torch.isfinite(b)).any()):
            return ("case %s: with its floating-point inputs moved by up to "
                    "an eighth, the kernel as shipped returns infinities or "
                    "NaNs where the recorded inputs give numbers"
                    % mc["aka_id"])
    return None


def same_buffers(run, shim, groups, mc, ci, used, set_bytes, device, per_tol,
                 exact):
    """arena's runners write each call's inputs into the same buffers.
    Another input set written into buffers the kernel has already been
    called on must give what that set gives in fresh buffers; a kernel that
    keeps what it derived from an input by the input's address (a cache
    keyed by data_ptr()) answers from the old values, right in a harness
    whose inputs never change in place and wrong under arena.  That is the
    task's fault (TaskFault), not arena's."""
    torch = torch_mod()
    fresh = packed(run, groups, mc, set_bytes, device)
    new = packed(run, groups, mc, set_bytes, device)
    try:
        shim.launch(fresh, [ci])
        for t, n in zip(used, new):     # every input, outputs poisoned
            t.copy_(n)
        shim.launch(used, [ci])
    except Exception as e:  # noqa: B902
        raise Unsupported("case %s: replaying its calls on a second input set "
                          "raised %s: %s" % (mc["aka_id"], type(e).__name__, e))
    if device == "cuda":
        torch.cuda.synchronize()
    if not results_agree(groups, used, fresh, per_tol, exact):
        raise TaskFault("case %s: the kernel as shipped keeps state between "
                        "calls: given new input values in the buffers of an "
                        "earlier call, it returns other results than for the "
                        "same values in fresh buffers (a cache keyed by a "
                        "buffer's address?); AKA's harness never changes an "
                        "input in place, arena's runners do for every call, "
                        "so the task cannot be evaluated here" % mc["aka_id"])


