#!/usr/bin/env python3
"""tests/tree/rooms.py - the rooms of the tree point one way.

docs/architecture.md draws the rooms and their arrows; ALLOWED below is the
same table, and this test fails, naming the file and the edge, when:

  1. a source includes a header of a room it may not call, or reaches a
     header by a relative path ("../x.h": the narrowed include paths of the
     Makefile are what keeps rooms apart, and "../" walks around them);
  2. an object of one room uses a symbol defined by a room it may not call
     (nm over the built objects, so a hand-written extern that no #include
     shows is caught too);
  3. the runner (arena-runner and the host objects the GPU runners link)
     uses or defines a symbol of the controller, or includes anything of
     engine/include but the ABI (kernel.h, fp16.h, runner_proto.h);
  4. the engine names an agent, the filesystem or the CLI: an #include of
     agents/, fs/ or cli/, a symbol of theirs used by libarena.a, or the
     mount itself ($ARENA_MOUNT, <fuse...> headers): the front end that
     knows the mount passes what the engine needs (engine.h,
     engine_set_workspace_view).

usage: B=build python3 tests/tree/rooms.py   (needs the objects of a build)
Exit 0: the rules hold; 1: a rule broke (each break on its own line);
77: no build to look at.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
B = os.environ.get("B", "build")

# Who may call whom.  "abi" is the contract between controller, runners and
# tasks (kernel.h, fp16.h, runner_proto.h, the HIP-on-NVIDIA headers):
# anyone may read it.  A room always may use itself.
ALLOWED = {
    "base": set(),
    "task": {"base", "abi"},
    "result": {"base"},
    "store": {"base"},
    "eval": {"base", "task", "result", "abi"},
    "report": {"base", "task", "result", "store"},
    "run": {"base", "task", "result", "store", "eval", "report", "abi"},
    "runner": {"abi"},
    "agents/sandbox": {"base"},
    "agents/bridge": {"base", "task", "result", "eval", "run"},
    "agents/cli": {"base", "task", "result", "eval", "run",
                   "agents/bridge", "agents/sandbox"},
    "agents": {"base", "task", "result", "store", "eval", "run",
               "agents/cli", "agents/bridge", "agents/sandbox"},
    "fs": {"base", "task", "result", "store", "eval", "report", "run"},
    "serve": {"base", "task", "result", "store", "run"},
    "cli": {"base", "task", "result", "store", "eval", "report", "run",
            "agents", "agents/cli", "agents/bridge", "agents/sandbox", "fs",
            "serve"},
}
ENGINE = {"base", "task", "result", "store", "eval", "report", "run"}
FRONT = {"agents", "agents/cli", "agents/bridge", "agents/sandbox", "fs",
         "serve", "cli"}

# The public headers (engine/include/arena/) and the room that implements
# each.  A new public header must be added here: an unknown one fails.
PUBLIC = {
    "util.h": "base", "stats.h": "base", "stats_dist.h": "base",
    "ydoc.h": "base",
    "paths.h": "base", "proc.h": "base", "banned.h": "base",
    "confine.h": "base", "fairlock.h": "base", "memledger.h": "base",
    "task.h": "task", "expr.h": "task", "config.h": "task",
    "result.h": "result", "result_view.h": "result",
    "store.h": "store",
    "eval.h": "eval", "doctor.h": "eval",
    "report.h": "report", "report_html.h": "report", "compare.h": "report",
    "abtest.h": "report", "plan.h": "report",
    "engine.h": "run", "engine_fs.h": "run", "agent.h": "run",
    "check.h": "run",
    "kernel.h": "abi", "fp16.h": "abi", "runner_proto.h": "abi",
    "fd_pass.h": "abi",
}

SRC_DIRS = ["engine/src", "engine/runner", "engine/include", "agents", "fs",
            "serve", "cli"]
EXTS = (".c", ".h", ".cpp")


def room_of(path):
    """The room of a repository path, or None when it belongs to none."""
    p = path.split("/")
    if p[:2] == ["engine", "src"] and len(p) >= 4:
        return p[2]
    if p[:2] == ["engine", "runner"]:
        return "runner"
    if p[:3] == ["engine", "include", "arena"]:
        if len(p) >= 5 and p[3] == "hip_nvidia":
            return "abi"
        return PUBLIC.get(p[3], "unknown-public")
    if p[0] == "agents":
        if len(p) >= 3 and p[1] in ("cli", "bridge", "sandbox"):
            return "agents/" + p[1]
        return "agents"
    if p[0] in ("fs", "serve", "cli"):
        return p[0]
    return None


# Include search path of each area, as the Makefile sets it (besides the
# including file's own directory).
def include_dirs(path):
    r = room_of(path)
    dirs = ["engine/include"]
    if r and r.startswith("agents"):
        dirs.append("agents")
    if r == "cli":
        dirs += ["agents", "fs", "serve"]
    if r == "runner":
        dirs.append("engine/runner")	# the GPU runner's "gpu/..." and
    return dirs				# "runner_io.h"


INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def resolve(src, name):
    here = os.path.dirname(src)
    for d in [here] + include_dirs(src):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(ROOT, cand)):
            return cand
    return None


def check_includes(errors):
    n = 0
    for top in SRC_DIRS:
        for dp, _, fs in os.walk(os.path.join(ROOT, top)):
            for f in sorted(fs):
                if not f.endswith(EXTS):
                    continue
                src = os.path.relpath(os.path.join(dp, f), ROOT)
                me = room_of(src)
                text = open(os.path.join(ROOT, src), errors="replace").read()
                for name in INC.findall(text):
                    n += 1
                    if name.startswith("../") or "/../" in name:
                        errors.append("%s: includes \"%s\" by a relative "
                                      "path; include it through its room's "
                                      "public header instead" % (src, name))
                        continue
                    hdr = resolve(src, name)
                    if hdr is None:
                        errors.append("%s: includes \"%s\", which is not in "
                                      "its room nor on its include path"
                                      % (src, name))
                        continue
                    them = room_of(hdr)
                    if them == "unknown-public":
                        errors.append("%s: public header %s has no owning "
                                      "room in tests/tree/rooms.py PUBLIC"
                                      % (src, hdr))
                        continue
                    if me is None or them is None or them == me:
                        continue
                    if them not in ALLOWED.get(me, set()):
                        errors.append("%s (room %s) includes %s (room %s): "
                                      "%s may not call %s"
                                      % (src, me, hdr, them, me, them))
    return n


# Words no engine source may contain (comments aside): the engine knows no
# mount and no FUSE.
ENGINE_BANNED = [re.compile(r'ARENA_MOUNT'), re.compile(r'#\s*include\s*<fuse')]
COMMENT = re.compile(r'/\*.*?\*/|//[^\n]*', re.S)


def check_engine_words(errors):
    for dp, _, fs in os.walk(os.path.join(ROOT, "engine", "src")):
        for f in sorted(fs):
            if not f.endswith(EXTS):
                continue
            src = os.path.relpath(os.path.join(dp, f), ROOT)
            code = COMMENT.sub("", open(os.path.join(ROOT, src),
                                        errors="replace").read())
            for pat in ENGINE_BANNED:
                if pat.search(code):
                    errors.append("%s: the engine names the mount (%s); "
                                  "the front end passes what it needs"
                                  % (src, pat.pattern))


def nm(paths, defined):
    """{path: [global symbols]} defined (or used, undefined) by each file;
    one nm for all of them."""
    args = ["nm", "-A", "--defined-only" if defined else "--undefined-only"]
    out = subprocess.run(args + list(paths), capture_output=True,
                         text=True, check=False).stdout
    syms = {p: [] for p in paths}
    for line in out.splitlines():
        # "path:address T name" or "path:                 U name"
        if ":" not in line:
            continue
        path, rest = line.split(":", 1)
        parts = rest.split()
        if len(parts) < 2 or path not in syms:
            continue
        kind, name = parts[-2], parts[-1]
        if defined and not kind.isupper():
            continue		# local (static) symbols name no edge
        syms[path].append(name)
    return syms


def objects():
    """Every object of the build with its source path and room."""
    out = []
    for top in ["engine/src", "engine/runner", "agents", "fs", "serve",
                "cli"]:
        for dp, _, fs in os.walk(os.path.join(ROOT, B, top)):
            for f in fs:
                if not f.endswith(".o"):
                    continue
                obj = os.path.join(dp, f)
                src = os.path.relpath(obj, os.path.join(ROOT, B))[:-2]
                for ext in (".c", ".cpp"):
                    if os.path.isfile(os.path.join(ROOT, src + ext)):
                        out.append((obj, src + ext, room_of(src + ext)))
                        break
    return out


def check_symbols(errors):
    objs = objects()
    paths = [o[0] for o in objs]
    defs = nm(paths, True) if paths else {}
    uses = nm(paths, False) if paths else {}
    owner = {}
    for obj, src, room in objs:
        if room is None or room == "runner":
            continue
        for s in defs[obj]:
            owner.setdefault(s, (room, src))
    runner_defs = set()
    for obj, src, room in objs:
        if room == "runner":
            runner_defs.update(defs[obj])
    edges = 0
    for obj, src, room in objs:
        if room is None:
            continue
        for s in uses[obj]:
            if room == "runner":
                if s in owner:
                    errors.append("%s (the runner) uses %s, defined by %s "
                                  "(room %s): the runner links nothing of "
                                  "the controller" % (src, s, owner[s][1],
                                                      owner[s][0]))
                continue
            if s not in owner:
                continue
            them, where = owner[s]
            edges += 1
            if them != room and them not in ALLOWED.get(room, set()):
                errors.append("%s (room %s) uses %s from %s (room %s): %s "
                              "may not call %s" % (src, room, s, where, them,
                                                   room, them))
    # every program has a main; the runner's is its own
    clash = sorted(runner_defs & set(owner) - {"main"})
    for s in clash:
        errors.append("the runner defines %s, which %s (room %s) defines "
                      "too: runner code must not be shared with the "
                      "controller" % (s, owner[s][1], owner[s][0]))
    runner = os.path.join(ROOT, B, "arena-runner")
    if os.path.isfile(runner):
        for s in nm([runner], True)[runner]:
            if s in owner and s != "main" and owner[s][0] in ENGINE | FRONT:
                errors.append("arena-runner holds %s, defined by %s (room "
                              "%s)" % (s, owner[s][1], owner[s][0]))
    return len(objs), edges


def main():
    if not os.path.isfile(os.path.join(ROOT, B, "libarena.a")):
        print("skip: no build in %s (run make first)" % B)
        return 77
    errors = []
    nincl = check_includes(errors)
    check_engine_words(errors)
    nobj, nedges = check_symbols(errors)
    if nobj == 0:
        print("no objects found under %s" % B)
        return 1
    for e in errors:
        print(e)
    print("rooms: %d includes and %d cross-object symbol uses in %d objects "
          "checked, %d broken rules" % (nincl, nedges, nobj, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
