#!/usr/bin/env python3
"""tests/gpu/noop_verdict.py - the A/A verdict over one or more summary.csv
files of noop runs (tests/gpu/noop.sh writes one; a suite split over
several device calls gives several): every timed task's speedup within
1.00 +- 0.02, and the median relative half-width of the speedup intervals
<= 1%.  Prints a table and a last line "noop: PASS" or "noop: FAIL (...)";
exits 0 on PASS.

usage: tests/gpu/noop_verdict.py SUMMARY.csv [SUMMARY.csv...]
"""
import csv
import statistics
import sys


def main(paths):
    sp_all, half, bad, skipped = [], [], [], []
    print("task | status | speedup [CI] | CI half-width")
    for path in paths:
        for r in csv.DictReader(open(path, newline="")):
            st, sp = r.get("Status", ""), r.get("Speedup", "")
            lo, hi = r.get("Speedup CI Low", ""), r.get("Speedup CI High", "")
            name = r.get("Task Name", "?")
            if st != "ok" or not sp or not lo or not hi or float(sp) <= 0:
                print(f"{name} | {st} | - | - (not counted)")
                skipped.append(name)
                continue
            sp, lo, hi = float(sp), float(lo), float(hi)
            hw = (hi - lo) / 2 / sp
            sp_all.append(sp)
            half.append(hw)
            flag = "" if abs(sp - 1) <= 0.02 else "  <-- outside 1.00 +- 0.02"
            if flag:
                bad.append(name)
            print(f"{name} | ok | {sp:.4f} [{lo:.4f}, {hi:.4f}] | "
                  f"{hw * 100:.2f}%{flag}")
    if not sp_all:
        print("noop: FAIL (no task was timed)")
        return 1
    med = statistics.median(half)
    print(f"counted {len(sp_all)} tasks ({len(skipped)} not timed): speedups "
          f"{min(sp_all):.4f}..{max(sp_all):.4f}, median CI half-width "
          f"{med * 100:.2f}%")
    why = []
    if bad:
        why.append("outside 1.00 +- 0.02: " + " ".join(bad))
    if med > 0.01:
        why.append("median half-width above 1%")
    print("noop: " + ("PASS" if not why else "FAIL (" + "; ".join(why) + ")"))
    return 0 if not why else 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
