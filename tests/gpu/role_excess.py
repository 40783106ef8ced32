#!/usr/bin/env python3
"""Where a candidate's excess over its baseline lies, pair by pair, from a
GPU evaluation's timing.tsv (docs/gpu.md section 6): for each case, over
its timed pairs, the median per-pair difference candidate minus baseline
of

  e_t     the `time` request's wall less its claim (launches enqueued,
          the gate's reaction, the reply)
  e_r     the gate's reaction: from the controller's token to the reply,
          less the claim (gated pairs only)
  enq     e_t less e_r: the request up to the gate's opening, mostly the
          runner enqueueing its calls (a Python runner's launches)
  cpu     the runner's CPU time inside the request (the kernel's
          accounting)
  delay   the runner's time waiting for a CPU inside the request
          (schedstat)
  claim   the claims themselves

then e_t split by which runner went first in the pair and by whether the
pair was checked (0 windows, 1 whole, 2 whole and against the reference),
and e_t per block (each block is a fresh pair of processes).  A bias that
every block shares, in cpu and not delay, is the candidate's own work; in
delay, the machine's scheduling; in one block only, that pair of
processes.

usage: role_excess.py TIMING.TSV...
"""
import csv
import statistics
import sys


def median(v):
    return statistics.median(v) if v else float("nan")


def num(row, key):
    try:
        return float(row.get(key, "") or "nan")
    except ValueError:
        return float("nan")


def diffs(rows, key_of):
    """Per pair, candidate minus baseline of key_of(row, side), in us,
    leaving out pairs where either side is unknown (nan)."""
    out = []
    for r in rows:
        b, c = key_of(r, "base"), key_of(r, "cand")
        if b == b and c == c:
            out.append((c - b) / 1e3)
    return out


def e_t(r, side):
    return num(r, side + "_wall_ns") - num(r, side + "_claim_ns")


def e_r(r, side):
    react = num(r, side + "_react_ns")
    return react - num(r, side + "_claim_ns") if react >= 0 else float("nan")


def enq(r, side):
    return e_t(r, side) - e_r(r, side)


COLUMNS = [
    ("e_t", e_t),
    ("e_r", e_r),
    ("enq", enq),
    ("cpu", lambda r, s: num(r, s + "_cpu_ns")),
    ("delay", lambda r, s: num(r, s + "_delay_ns")),
    ("claim", lambda r, s: num(r, s + "_claim_ns")),
]


def fmt(v):
    return "%d x %+.1f" % (len(v), median(v)) if v else "-"


def report(path):
    with open(path) as f:
        rows = [r for r in csv.DictReader(
            (ln for ln in f if not ln.startswith("#")), delimiter="\t")
            if r.get("kind") == "timed"]
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])
    for case in cases:
        cr = [r for r in rows if r["case"] == case]
        print("%s: %s: %d timed pairs; candidate - baseline, median us"
              % (path, case, len(cr)))
        print("    " + "; ".join("%s %s" % (n, fmt(diffs(cr, k)))
                                 for n, k in COLUMNS))
        split = []
        for label, test in (("baseline first", lambda r: r.get("base_first") == "1"),
                            ("candidate first", lambda r: r.get("base_first") == "0")):
            split.append("%s %s" % (label, fmt(diffs([r for r in cr if test(r)], e_t))))
        for k in ("0", "1", "2"):
            sub = [r for r in cr if r.get("checked") == k]
            if sub:
                split.append("checked=%s %s" % (k, fmt(diffs(sub, e_t))))
        print("    e_t by order and check: " + "; ".join(split))
        blocks = sorted({int(r["block"]) for r in cr})
        print("    e_t by block: " + "; ".join(
            "%d: %s" % (b, fmt(diffs([r for r in cr if int(r["block"]) == b], e_t)))
            for b in blocks))


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    for p in argv:
        report(p)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
