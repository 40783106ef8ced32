#!/usr/bin/env python3
"""tests/gpu/check_tasks_table.py - a docs-ready table of `arena
check-tasks --json` reports.

usage: check_tasks_table.py OUT.md [FAILURES.txt] REPORT.json...
Each REPORT is what `arena check-tasks --json` printed (one task or many).
Writes one row per task to OUT.md: status (ok; "partly" with the checks
that were skipped; fail), the checks that failed and the mutants that got
through, mutants caught of those that changed an output, the A/A speedup
and interval, the baseline's times on the timed visible cases, and its
fraction of the roofline, and below the table the A/A coverage: of the
tasks whose A/A was timed, how many first tries (a retried A/A's detail
keeps its first try) have an interval that holds 1.0, and how many speedups
lie within 1.00 +- 0.02.  FAILURES.txt (optional, a name ending in .txt)
gets every failed check and too-weak mutant of every failing task, one
line each.  Exit 1 when a task failed or a report is missing.
"""
import json
import os
import re
import sys


def rows_of(path):
    try:
        doc = json.load(open(path))
    except (OSError, ValueError) as e:
        name = os.path.basename(path).rsplit(".", 1)[0].replace("_", "/", 1)
        return [(name, None, str(e))]
    return [(t["task"], t, None) for t in doc.get("tasks", [])]


def row(t):
    checks = {c["check"]: c for c in t["checks"]}
    bad = [c["check"] for c in t["checks"] if c["status"] == "fail"]
    skip = [c["check"] for c in t["checks"] if c["status"] == "skip"]
    applied = [m for m in t["mutants"] if m["outcome"] != "no_change"]
    caught = [m for m in applied if m["outcome"] == "caught"]
    weak = ", ".join("%s on %s" % (m["mutant"], m["output"])
                     for m in applied if m["outcome"] == "too_weak")
    aa = checks.get("aa", {})
    aa_text = aa.get("detail", "").split(" over ")[0].replace("speedup ", "") \
        if aa.get("status") == "ok" or aa.get("detail", "").startswith("speedup") \
        else aa.get("status", "-")
    diff = t.get("difficulty")
    frac = "%.3g%%" % (100 * diff["fraction"]) if diff else "-"
    times = "-"
    if diff and diff["cases"]:
        b = [c["base_ms"] * 1000 for c in diff["cases"]]
        times = "%.0f-%.0f" % (min(b), max(b)) if max(b) >= 10 else \
            "%.2g-%.2g" % (min(b), max(b))
    if t["status"] != "ok":
        status = "FAIL"
    elif skip:
        status = "partly (%s skipped)" % ", ".join(skip)
    else:
        status = "ok"
    failed = ", ".join(bad)
    if weak:
        failed += (": " if failed else "") + "too weak: " + weak
    muts = "%d/%d" % (len(caught), len(applied)) if t["mutants"] else "-"
    return (t["task"], status, failed or "-", muts, aa_text, times, frac)


AA_RE = re.compile(r"speedup ([0-9.]+) \[([0-9.]+), ([0-9.]+)\]")
FIRST_RE = re.compile(r"first try ([0-9.]+) \[([0-9.]+), ([0-9.]+)\]")


def aa_first_try(t):
    """(speedup, lo, hi) of the task's first A/A try, or None if untimed."""
    aa = {c["check"]: c for c in t["checks"]}.get("aa")
    if not aa:
        return None
    m = FIRST_RE.search(aa["detail"]) or AA_RE.match(aa["detail"])
    return tuple(float(x) for x in m.groups()) if m else None


def coverage_line(tasks):
    firsts = [f for f in map(aa_first_try, tasks) if f]
    if not firsts:
        return "A/A: no task was timed."
    held = sum(1 for s, lo, hi in firsts if lo <= 1.0 <= hi)
    near = sum(1 for s, lo, hi in firsts if abs(s - 1.0) <= 0.02)
    return ("A/A first tries: %d of %d intervals hold 1.0 (%.1f%%); "
            "%d of %d speedups within 1.00 +- 0.02; speedups %.4f-%.4f."
            % (held, len(firsts), 100.0 * held / len(firsts), near,
               len(firsts), min(f[0] for f in firsts),
               max(f[0] for f in firsts)))


def failure_lines(t):
    lines = ["%s: %s: %s" % (t["task"], c["check"], c["detail"])
             for c in t["checks"] if c["status"] == "fail"]
    lines += ["%s: mutant %s on %s passed the comparison" %
              (t["task"], m["mutant"], m["output"])
              for m in t["mutants"] if m["outcome"] == "too_weak"]
    return "\n".join(lines)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, args = sys.argv[1], sys.argv[2:]
    fails_path = args.pop(0) if args and args[0].endswith(".txt") else None
    rows, failures, nfail, tasks = [], [], 0, []
    for p in args:
        for name, t, err in rows_of(p):
            if t is None:
                rows.append((name, "no report", err, "-", "-", "-", "-"))
                failures.append("%s: no report (%s)" % (name, err))
                nfail += 1
                continue
            rows.append(row(t))
            tasks.append(t)
            if t["status"] != "ok":
                nfail += 1
                failures.append(failure_lines(t))
    rows.sort()
    with open(out, "w") as f:
        f.write("| task | check-tasks | failed | mutants caught | "
                "A/A speedup [95%] | baseline us | of roofline |\n")
        f.write("|---|---|---|---:|---|---:|---:|\n")
        for r in rows:
            f.write("| %s |\n" % " | ".join(r))
        f.write("\n%d tasks, %d failed.\n" % (len(rows), nfail))
        f.write("%s\n" % coverage_line(tasks))
    if fails_path:
        with open(fails_path, "w") as f:
            f.write("\n".join(failures) + ("\n" if failures else ""))
    print("%s: %d tasks, %d failed" % (out, len(rows), nfail))
    print(coverage_line(tasks))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
