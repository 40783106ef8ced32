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
manifest.json even when the task cannot be prepared: its "error" says why,
"amd_only" whether the reason is a feature NVIDIA GPUs lack, and
"task_fails" whether it is the task's own (its kernel as shipped fails
its own check here) rather than arena's (a harness arena cannot record).
"""
import argparse
import json
import os
import re
import shutil
import sys
import traceback
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from aka_calls import TaskFault, Unsupported  # noqa: E402
from aka_pack import build, replay, tolerance, write_shim  # noqa: E402
from aka_styles import Run, geak, gpumode, rocmbench, vllm  # noqa: E402

# AMD-only features, as the errors that name them read.  Matched against
# the harness's message and the exception's text only, never against a
# traceback: file paths ("rocmbench/...") and source lines quoted in one
# (an `is_hip()` branch, a HIP autotune config) say nothing about why it
# failed.
AMD_ONLY = [
    (r"fnuz|fp8e4b8|fp8e5b16", "fp8 'fnuz' types are AMD-only"),
    (r"waves_per_eu", "Triton's waves_per_eu option is AMD-only"),
    (r"No module named '?aiter|/sgl-workspace/aiter",
     "AMD's aiter library is not installed"),
    (r"matrix_instr_nonkdim|\bkpack\b", "an AMD-only Triton option"),
    (r"No module named '?flydsl", "FlyDSL is AMD-only"),
    (r"\bhip_?runtime\b|\bROCm\b|\brocm\b|\bgfx9\d*\b|\bhipErr",
     "the code path needs ROCm"),
    (r"MXFP4 not supported on this architecture",
     "MXFP4 needs a GPU architecture this one is not (AMD CDNA4)"),
]

# ---- main --------------------------------------------------------------------

def amd_only(text):
    for pat, why in AMD_ONLY:
        if text and re.search(pat, text):
            return why
    return None


STAND_INS = {"performance_utils_pytest.py": "aka_perf_utils.py"}


def stand_ins(a):
    """AKA task folders ship helper modules as stubs that raise when
    imported (AKA writes the real ones into each workspace).  Where the
    folder's copy raises, arena's stand-in (its own code, the same names)
    takes its place, here and in every bundle.  Returns the replaced
    paths."""
    import importlib.util as iu
    here = os.path.dirname(os.path.abspath(__file__))
    replaced = {}
    for name, mine in STAND_INS.items():
        path = os.path.join(a.task, name)
        if not os.path.isfile(path):
            continue
        spec = iu.spec_from_file_location(name[:-3], path)
        mod = iu.module_from_spec(spec)
        try:
            spec.loader.exec_module(mod)
            continue
        except Exception:  # noqa: B902 - the stub raises; anything else too
            pass
        spec = iu.spec_from_file_location(name[:-3], os.path.join(here, mine))
        mod = iu.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sys.modules[name[:-3]] = mod
        replaced[name] = os.path.join(here, mine)
    return replaced


def copy_sources(a, out, replaced):
    """The task's .py files at their paths (the bundle's modules) and its
    editable files (the baseline's, a gpumode task's .hip among them)."""
    for root, dirs, files in os.walk(a.task):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in
                   ("build", "__pycache__")]
        for f in files:
            if not f.endswith(".py") and \
                    os.path.relpath(os.path.join(root, f), a.task) not in a.editable:
                continue
            src = os.path.join(root, f)
            rel = os.path.relpath(src, a.task)
            if rel.count("/") > 3 or os.path.getsize(src) > (1 << 20):
                continue
            dst = os.path.join(out, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(replaced.get(rel, src), dst)


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
    a.sets = max(1, min(a.sets, 64))
    os.makedirs(a.out, exist_ok=True)
    # The harness runs in a private copy of the task folder: whatever it
    # writes (build/, perf/ reports) stays there.
    work = os.path.join(a.out, ".task")
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.realpath(a.task), work, symlinks=False,
                    ignore=shutil.ignore_patterns("build", "__pycache__", ".*"))
    # A run's trusted copy is read-only (files 0444, folders 0555); the
    # harness writes its reports into this copy.
    for root, dirs, files in os.walk(work):
        os.chmod(root, 0o755)
        for f in files:
            p = os.path.join(root, f)
            os.chmod(p, os.stat(p).st_mode & 0o755 | 0o600)
    a.task = work
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
        replaced = stand_ins(a)
        run = Run(a)
        run.seeds.install()
        {"vllm": vllm, "rocmbench": rocmbench, "geak_eval": geak,
         "gpumode": gpumode}[a.style](run)
        # gpumode's harness compares with torch.allclose(rtol=1e-4,
        # atol=1e-5), written as defaults the tolerance scan does not read.
        per_tol, exact = tolerance(
            "allclose(atol=1e-5, rtol=1e-4)" if run.gpumode else
            open(os.path.join(a.task, a.harness)).read())
        manifest["check"] = {"passed": bool(run.check_ok), "message": run.check_msg,
                             "catches_wrong": run.catches_wrong}
        if not run.check_ok:
            why = amd_only(run.check_msg or "")
            manifest["error"] = ("the kernel as shipped fails the task's own "
                                 "correctness check: %s" % (run.check_msg or
                                                            "no reason given"))
            manifest["amd_only"] = why
            # The task cannot be evaluated here for a reason of its own:
            # a run skips it with this reason (check-tasks flags it).
            manifest["task_fails"] = True
        else:
            groups, programs, mcases, cases_sets = build(run, a.out)
            src = write_shim(a.out, programs, a.editable[0], a.device,
                             run.gpumode)
            shim = types.ModuleType("_arena_aka_replay")
            exec(compile(src, "_arena_aka.py", "exec"), shim.__dict__)
            verbatim = replay(run, shim, groups, programs, mcases, cases_sets,
                              per_tol, exact, a.out)
            if verbatim:
                manifest["verbatim"] = verbatim
            copy_sources(a, a.out, replaced)
            if run.gpumode:
                manifest["extension"] = a.editable[0]
            manifest["args"] = [{"name": "%s_%s" % g, "io": g[0],
                                 "dtype": "u8" if g[1] == "bytes" else g[1],
                                 "bytes": g[1] == "bytes"} for g in groups]
            manifest["cases"] = mcases
            manifest["tolerance"] = per_tol
            manifest["exact"] = exact
    except Unsupported as e:
        manifest["error"] = "arena cannot record this task's calls: %s" % e
        manifest["amd_only"] = amd_only(str(e))
    except TaskFault as e:
        manifest["error"] = str(e)
        manifest["amd_only"] = amd_only(str(e))
        manifest["task_fails"] = True
    except Exception as e:  # noqa: B902 - the task's code failed
        tb = traceback.format_exc()
        sys.stderr.write(tb)
        manifest["error"] = "preparing the task failed: %s: %s" % (
            type(e).__name__, str(e)[:400])
        manifest["amd_only"] = amd_only(str(e))
    if run is not None:
        manifest["notes"] = run.notes[:20]
    with open(os.path.join(a.out, "manifest.json.tmp"), "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(os.path.join(a.out, "manifest.json.tmp"),
               os.path.join(a.out, "manifest.json"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

