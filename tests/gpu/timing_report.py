#!/usr/bin/env python3
"""tests/gpu/timing_report.py - where an evaluation's noise and seconds
come from, from the timing.tsv files that evaluations leave in their log
directories (`arena eval --logs DIR`, or a run's attempt logs).

Per case: timed pairs and blocks, the batch size, the median claim per
call, the robust spread (1.4826 x MAD / median) of the baseline's and the
candidate's claims and of their per-pair ratio, each block's median ratio,
and the host's share of a pair: staging inputs, the runners' requests by
the controller's clock, and checking outputs.  Then the phase marks.

usage: tests/gpu/timing_report.py TIMING.tsv [TIMING.tsv...]
"""
import csv
import statistics
import sys


def robust_cv(v):
    if len(v) < 2:
        return float("nan")
    m = statistics.median(v)
    mad = statistics.median(abs(x - m) for x in v)
    return 1.4826 * mad / m if m else float("nan")


def report(path):
    rows, marks = [], []
    with open(path, newline="") as f:
        lines = [l for l in f if not l.startswith("#") or marks.append(l[2:].strip())]
    for r in csv.DictReader(lines, delimiter="\t"):
        rows.append(r)
    print(f"== {path}")
    cases = []
    for r in rows:
        if r["case"] not in cases:
            cases.append(r["case"])
    print("case | pairs | blocks | batch | base us/call | cv base | cv cand | "
          "cv ratio | block medians | stage ms | requests ms | check ms")
    for c in cases:
        t = [r for r in rows if r["case"] == c and r["kind"] == "timed"]
        if not t:
            continue
        n = int(t[0]["batch"])
        b = [float(r["base_claim_ns"]) for r in t]
        k = [float(r["cand_claim_ns"]) for r in t]
        ratio = [x / y for x, y in zip(b, k)]
        blocks = sorted({int(r["block"]) for r in t})
        bm = []
        for blk in blocks:
            rr = [x / y for x, y, r in zip(b, k, t) if int(r["block"]) == blk]
            bm.append(statistics.median(rr))
        req = [(float(r["base_wall_ns"]) + float(r["cand_wall_ns"]) +
                float(r["base_fetch_ns"]) + float(r["cand_fetch_ns"])) / 1e6
               for r in t]
        print(f"{c} | {len(t)} | {len(blocks)} | {n} | "
              f"{statistics.median(b) / n / 1e3:.2f} | {robust_cv(b) * 100:.2f}% | "
              f"{robust_cv(k) * 100:.2f}% | {robust_cv(ratio) * 100:.2f}% | "
              f"{' '.join(f'{m:.4f}' for m in bm)} | "
              f"{statistics.median(float(r['stage_ns']) for r in t) / 1e6:.1f} | "
              f"{statistics.median(req):.1f} | "
              f"{statistics.median(float(r['check_ns']) for r in t) / 1e6:.1f}")
    if marks:
        print("phases: " + "; ".join(marks))


def main(paths):
    for p in paths:
        report(p)
    return 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
