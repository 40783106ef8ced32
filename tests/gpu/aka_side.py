#!/usr/bin/env python3
"""tests/gpu/aka_side.py - AgentKernelArena's own verdict beside arena's,
for tests/gpu/aka.sh (docs/aka.md).

  aka_side.py own TASK_DIR WORK_DIR [--timeout S] [--perf] [--aka-root DIR]
      AKA's commands for one task folder, the way AKA's evaluator runs
      them (docs/aka.md, "Tests and measurements"): the folder copied to
      WORK_DIR/ws, AKA's timing helpers materialized there by AKA's own
      tool from the checkout DIR (src/tools/materialize_perf_helpers.py,
      as AKA's workspace setup does; without it the committed stubs stay
      and a rocmbench test file cannot import its helper), each
      compile_command then correctness_command (then
      performance_command with --perf) through the shell with the
      folder's copy as the working directory, a leading python3/python/
      pytest made this interpreter; compile stops at the first failure;
      correctness needs exit 0 and no "fail" in the output unless "pass"
      is in it too (AKA's text rule).  Prints one line:
        compile<TAB>correctness<TAB>verdict<TAB>seconds<TAB>perf_seconds<TAB>note
      and keeps the commands' output in WORK_DIR/log.

  aka_side.py checks CHECK_OUTPUT
      The reports of `arena check-tasks` (text, any number of tasks) as
      one line per task: "ID STATUS: DETAIL", STATUS from the task's
      `aka` check: OK (ok), SKIPPED (skip: it cannot run here), FLAGGED
      (FAIL: its harness fails the kernel as shipped, cannot be recorded
      or checks nothing), else INVALID (it does not load) or ERROR.

  aka_side.py table OWN.tsv CHECK.txt SUMMARY.csv TASKS.txt OUT.tsv
      Joins, per task of TASKS.txt, AKA's own verdict (OWN.tsv: id then the
      `own` line), arena's task check (lines of `checks` above) and
      arena's run verdict (the run's summary.csv) into OUT.tsv, and prints
      the summary: counts, agreements and disagreements, and the noop A/A
      over the tasks arena timed (speedups within 1.00 +- 0.02, intervals
      holding 1.0, their median relative half-width).
"""
import csv
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time


def own(task_dir, work, timeout, perf, aka_root):
    import yaml  # only this step needs PyYAML (the H200 image has it)

    with open(os.path.join(task_dir, "config.yaml")) as f:
        cfg = yaml.safe_load(f) or {}
    ws = os.path.join(work, "ws")
    shutil.rmtree(ws, ignore_errors=True)
    shutil.copytree(task_dir, ws, symlinks=True)
    log = open(os.path.join(work, "log"), "w")
    py = sys.executable
    current = [None]

    def on_term(signum, frame):
        # aka.sh's phase deadline: end the command running now too.
        if current[0] is not None:
            try:
                os.killpg(current[0].pid, signal.SIGKILL)
            except OSError:
                pass
        sys.exit(124)

    signal.signal(signal.SIGTERM, on_term)
    tool = os.path.join(aka_root or "", "src/tools/materialize_perf_helpers.py")
    if aka_root and os.path.exists(tool):
        p = subprocess.run([py, tool, "workspace", ws], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=60)
        log.write("$ materialize_perf_helpers.py workspace ws\n%s[exit %d]\n"
                  % (p.stdout.decode("utf-8", "replace"), p.returncode))
    else:
        log.write("AKA's helpers not materialized: no %s\n" % tool)

    def cmds(key):
        v = cfg.get(key) or []
        return [v] if isinstance(v, str) else [str(c) for c in v]

    def interp(c):
        c = c.strip()
        for lead, repl in (("python3 ", py + " "), ("python ", py + " "),
                           ("pytest ", py + " -m pytest ")):
            if c.startswith(lead):
                return repl + c[len(lead):]
        return c

    def run(key):
        limit = min(timeout, int(cfg.get(key.replace("_command", "_timeout"))
                                 or timeout))
        out = []
        for c in cmds(key):
            log.write("$ %s\n" % c)
            log.flush()
            # A session of its own, so that a timeout ends the whole
            # command (pytest's and the harness's children too).
            p = subprocess.Popen(interp(c), shell=True, cwd=ws,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT,
                                 start_new_session=True)
            current[0] = p
            try:
                raw, _ = p.communicate(timeout=limit)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                raw, _ = p.communicate()
                text = raw.decode("utf-8", "replace")
                log.write(text + "\n[timed out after %d s]\n" % limit)
                return "TIMEOUT", text
            text = raw.decode("utf-8", "replace")
            log.write(text + "\n[exit %d]\n" % p.returncode)
            out.append(text)
            if p.returncode != 0:
                return "FAIL", text
        return "PASS", "".join(out)

    def first_bad(text):
        for line in text.splitlines():
            if re.search(r"fail|error|exception|assert", line, re.I):
                return line.strip()[:160].replace("\t", " ")
        return text.strip().splitlines()[-1][:160] if text.strip() else ""

    t0 = time.time()
    comp, text = run("compile_command")
    corr, note, perf_s = "-", "", "-"
    if comp != "PASS":
        verdict, note = "COMPILE_" + comp, first_bad(text)
    else:
        corr, text = run("correctness_command")
        low = text.lower()
        if corr == "PASS" and "fail" in low and "pass" not in low:
            corr = "FAIL_TEXT"  # exit 0 but AKA's text rule fails it
        verdict = "PASS" if corr == "PASS" else "CORRECTNESS_" + corr
        if corr != "PASS":
            note = first_bad(text)
        elif "fail" in low:
            note = "exit 0 and both 'fail' and 'pass' in the output: " \
                   "AKA's text rule passes it"
    secs = time.time() - t0
    if perf and verdict == "PASS" and cmds("performance_command"):
        t1 = time.time()
        st, _ = run("performance_command")
        perf_s = "%.1f%s" % (time.time() - t1, "" if st == "PASS" else " " + st)
    print("\t".join([comp, corr, verdict, "%.1f" % secs, perf_s, note]))


def checks(path):
    status = {"ok": "OK", "skip": "SKIPPED", "FAIL": "FLAGGED"}
    tasks, cur = {}, None
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"^(aka/\S+): (FAIL|ok)", line)
        if m:
            cur = m.group(1)
            tasks[cur] = {}
            continue
        m = re.match(r"^  (\w+) +(ok|FAIL|skip) (.*)$", line)
        if m and cur:
            tasks[cur][m.group(1)] = (m.group(2), m.group(3).strip())
            continue
        m = re.match(r"^arena: (aka/[^:]+): (.*)$", line)
        if m:  # check-tasks could not check it at all
            tasks.setdefault(m.group(1), {})["error"] = ("FAIL", m.group(2))
    for i, items in tasks.items():
        if "aka" in items:
            st, detail = status[items["aka"][0]], items["aka"][1]
        elif "load" in items and items["load"][0] == "FAIL":
            st, detail = "INVALID", items["load"][1]
        else:
            st = "ERROR"
            detail = items.get("error", ("", "no aka check reported"))[1]
        print("%s %s: %s" % (i, st, detail))


def table(own_tsv, check_txt, summary_csv, tasks_txt, out_tsv):
    ids = [l.strip() for l in open(tasks_txt) if l.strip()]
    aka = {}
    if os.path.exists(own_tsv):
        for line in open(own_tsv):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 4:
                aka[f[0]] = f[1:]
    check = {}
    if os.path.exists(check_txt):
        for line in open(check_txt):
            m = re.match(r"^(\S+) (OK|SKIPPED|FLAGGED|ERROR|INVALID): ?(.*)$",
                         line.rstrip("\n"))
            if m:
                check[m.group(1)] = (m.group(2), m.group(3))
    run = {}
    if summary_csv and os.path.exists(summary_csv):
        with open(summary_csv) as f:
            for r in csv.DictReader(f):
                run[r["Task Name"]] = r
    rows, n = [], {}

    def count(k):
        n[k] = n.get(k, 0) + 1

    for i in ids:
        a = aka.get(i, ["-", "-", "NOT_RUN", "-", "-", "not reached"])
        c = check.get(i, ("NOT_RUN", "not reached"))
        r = run.get(i)
        st = r["Status"] if r else "-"
        sp = r["Speedup"] if r else "-"
        lo = r.get("Speedup CI Low", "") if r else ""
        hi = r.get("Speedup CI High", "") if r else ""
        rows.append([i, a[2], a[0], a[1], a[3], a[4] if len(a) > 4 else "-",
                     c[0], st, sp, lo, hi,
                     (a[5] if len(a) > 5 else "")[:120], c[1][:160]])
        count("tasks")
        count("aka_" + a[2])
        count("check_" + c[0])
        count("run_" + st)
        if a[2] == "PASS" and st == "ok":
            count("both_pass")
        if a[2] == "PASS" and c[0] == "OK":
            count("aka_pass_check_ok")
    with open(out_tsv, "w") as f:
        f.write("\t".join(["task", "aka_verdict", "aka_compile",
                           "aka_correctness", "aka_s", "aka_perf_s",
                           "arena_check", "arena_status", "speedup",
                           "ci_low", "ci_high", "aka_note", "check_note"]) + "\n")
        for row in rows:
            f.write("\t".join(x.replace("\t", " ") for x in row) + "\n")

    def g(k):
        return n.get(k, 0)

    print("tasks %d; AKA's own: PASS %d, compile fail %d, correctness fail "
          "%d (of which exit 0 but text 'fail' %d), timeout %d, not run %d"
          % (g("tasks"), g("aka_PASS"),
             g("aka_COMPILE_FAIL") + g("aka_COMPILE_TIMEOUT"),
             g("aka_CORRECTNESS_FAIL") + g("aka_CORRECTNESS_FAIL_TEXT"),
             g("aka_CORRECTNESS_FAIL_TEXT"),
             g("aka_CORRECTNESS_TIMEOUT") + g("aka_COMPILE_TIMEOUT"),
             g("aka_NOT_RUN")))
    print("arena's check: OK %d, SKIPPED %d, FLAGGED %d, ERROR %d, not run %d"
          % (g("check_OK"), g("check_SKIPPED"), g("check_FLAGGED"),
             g("check_ERROR") + g("check_INVALID"), g("check_NOT_RUN")))
    runs = sorted(k[4:] for k in n if k.startswith("run_") and k != "run_-")
    print("arena run (noop): " + (", ".join("%s %d" % (s, g("run_" + s))
                                           for s in runs) or "none")
          + "; not in the run or not reached %d" % g("run_-"))
    print("AKA passes and arena's check is OK: %d; AKA passes and arena's "
          "run says ok: %d" % (g("aka_pass_check_ok"), g("both_pass")))
    dis = [r for r in rows
           if r[1] == "PASS" and r[6] not in ("OK", "NOT_RUN")
           or r[1] not in ("PASS", "NOT_RUN") and r[6] == "OK"]
    if dis:
        print("disagreements (AKA's verdict vs arena's check):")
        for r in dis:
            print("  %s: AKA %s, arena %s: %s" % (r[0], r[1], r[6],
                                                 r[12] or r[11]))
    sp, inside, half = [], 0, []
    for r in rows:
        if r[7] != "ok":
            continue
        try:
            s, lo, hi = float(r[8]), float(r[9]), float(r[10])
        except ValueError:
            continue
        if s <= 0:
            continue
        sp.append(s)
        inside += lo <= 1.0 <= hi
        half.append((hi - lo) / 2 / s)
    if sp:
        gm = math.exp(sum(math.log(s) for s in sp) / len(sp))
        within = sum(0.98 <= s <= 1.02 for s in sp)
        half.sort()
        print("noop A/A over %d timed tasks: geomean %.4f, min %.4f, max %.4f, "
              "within 1.00 +- 0.02: %d, interval holds 1.0: %d, median "
              "relative half-width %.2f%%"
              % (len(sp), gm, min(sp), max(sp), within, inside,
                 100 * half[len(half) // 2]))
    else:
        print("noop A/A: no task timed")


def main(argv):
    if len(argv) >= 3 and argv[0] == "own":
        timeout, perf, aka_root = 300, False, None
        rest = argv[3:]
        while rest:
            if rest[0] == "--timeout":
                timeout, rest = int(rest[1]), rest[2:]
            elif rest[0] == "--perf":
                perf, rest = True, rest[1:]
            elif rest[0] == "--aka-root":
                aka_root, rest = rest[1], rest[2:]
            else:
                sys.exit("aka_side.py own: unknown option " + rest[0])
        own(argv[1], argv[2], timeout, perf, aka_root)
    elif len(argv) == 2 and argv[0] == "checks":
        checks(argv[1])
    elif len(argv) == 6 and argv[0] == "table":
        table(*argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
