#!/usr/bin/env python3
"""tests/tree/banned.py - the functions of engine/include/arena/banned.h stay
banned.

  1. Calling any of them after #include "arena/util.h" does not compile,
     and the error names the function (sorry_<name>_is_a_banned_function).
  2. No object of the build - engine, runners, agents, fs, serve, cli, including
     sources that do not include util.h - refers to one of them (nm).

usage: B=build python3 tests/tree/banned.py
Exit 0: they are banned; 1: one is not (named); 77: no compiler or build.
"""
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
B = os.environ.get("B", "build")
CC = os.environ.get("CC", "cc")

# name: a call with the right number of arguments
CALLS = {
    "strcpy": "strcpy(b, \"x\")", "strcat": "strcat(b, \"x\")",
    "strncpy": "strncpy(b, \"x\", 1)", "strncat": "strncat(b, \"x\", 1)",
    "sprintf": "sprintf(b, \"%d\", 1)", "vsprintf": "vsprintf(b, \"x\", ap)",
    "strtok": "strtok(b, \",\")", "gets": "gets(b)",
    "gmtime": "gmtime(&t)", "localtime": "localtime(&t)",
    "ctime": "ctime(&t)", "asctime": "asctime(tm)",
    "tmpnam": "tmpnam(b)", "mktemp": "mktemp(b)",
}


def compiles_banned(tmp, name, call):
    src = os.path.join(tmp, name + ".c")
    with open(src, "w") as f:
        f.write('#include "arena/util.h"\n#include <stdarg.h>\n'
                "void probe(char *b, time_t t, struct tm *tm, va_list ap);\n"
                "void probe(char *b, time_t t, struct tm *tm, va_list ap)\n"
                "{ (void)t; (void)tm; (void)ap; (void)%s; }\n" % call)
    r = subprocess.run([CC, "-std=c11", "-D_GNU_SOURCE", "-I",
                        os.path.join(ROOT, "engine", "include"), "-c", src,
                        "-o", os.devnull], capture_output=True, text=True)
    return r.returncode, r.stderr


def main():
    if not shutil.which(CC):
        print("skip: no C compiler (%s)" % CC)
        return 77
    bad = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, call in sorted(CALLS.items()):
            rc, err = compiles_banned(tmp, name, call)
            if rc == 0 or ("sorry_%s_is_a_banned_function" % name) not in err:
                bad.append("%s: a call compiles after arena/util.h, or the "
                           "error does not name it" % name)
    objs = []
    for top in ("engine", "agents", "fs", "serve", "cli"):
        for dp, _, fs in os.walk(os.path.join(ROOT, B, top)):
            objs += [os.path.join(dp, f) for f in fs if f.endswith(".o")]
    if not objs:
        print("skip: no objects under %s (run make first)" % B)
        return 77
    out = subprocess.run(["nm", "-A", "--undefined-only"] + objs,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split()
        sym = parts[-1] if parts else ""
        if sym in CALLS:
            bad.append("%s uses %s" % (line.split(":", 1)[0], sym))
    for b in bad:
        print(b)
    print("banned: %d functions, %d objects checked, %d broken"
          % (len(CALLS), len(objs), len(bad)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
