#!/usr/bin/env python3
"""tests/gpu/check_margins.py - how close honest candidates come to the
GPU timing checks that reject hidden work, from the timing.tsv files that
evaluations leave (`arena eval --logs DIR`, a run's attempt logs,
tests/gpu/noop_split.sh's copies).

For every case it replays two of timing_gpu.c's checks (gpu_claims_ok)
with the bounds of gpu_policy.c, on the case's timed pairs:
  clock: the median excess e (per pair, the candidate's whole sample by
         the controller's clock less its claim, minus the baseline's: the
         last column of timing.tsv) against the gross bound max(50 us,
         10% of the candidate's median claim); the evaluator charges
         the lower bound of that median and rejects above the bound.
         Files from before the charged excess (no span columns): the
         old check, lower quartile of (wall + fetch - claim), candidate
         minus baseline, against max(50 us, 5% of the candidate's median
         claim, 3% of the baseline's median fetch) plus the noise term;
  drain: lower quartile of the drain, candidate minus baseline, against
         max(8 us, 2% of the candidate's median claim).
On an A/A run (noop, or an unchanged baseline) every ratio should sit
well below 1: the closer to 1, the closer an honest kernel came to being
rejected.  Keep the numbers here in step with gpu_policy.c.

usage: tests/gpu/check_margins.py [--top N] TIMING.tsv [TIMING.tsv...]
"""
import math
import statistics
import sys

CLOCK_FLOOR_NS = 50000.0
DRAIN_FLOOR_NS = 8000.0


def quantile(v, p):
    """Hyndman & Fan type 7, as stats_quantile_sorted."""
    v = sorted(v)
    h = p * (len(v) - 1)
    i = int(h)
    if i >= len(v) - 1:
        return v[-1]
    return v[i] + (v[i + 1] - v[i]) * (h - i)


def overhead_noise(cand, base):
    d = [c - b for c, b in zip(cand, base)]
    m = statistics.median(d)
    mad = statistics.median(abs(x - m) for x in d)
    return 3.0 * 1.2533 * 1.4826 * mad / math.sqrt(len(d))


def cases_of(path):
    cases = {}
    with open(path) as f:
        for line in f:
            r = line.rstrip("\n").split("\t")
            if line.startswith("#") or r[0] == "case" or r[2] != "timed":
                continue
            cases.setdefault(r[0], []).append([r[0]] + [float(x) for x in r[3:]])
    return cases


def margins(path):
    # columns after the case: num batch base_first base_claim cand_claim
    # base_wall cand_wall base_drain cand_drain base_fetch cand_fetch
    # stage check base_cpu cand_cpu base_delay cand_delay base_span
    # cand_span base_gen cand_gen base_keeper cand_keeper base_probe
    # cand_probe excess (r[1] is num)
    for case, rows in cases_of(path).items():
        bclaim = [r[4] for r in rows]
        cclaim = [r[5] for r in rows]
        bovh = [r[6] + r[10] - r[4] for r in rows]
        covh = [r[7] + r[11] - r[5] for r in rows]
        cm = statistics.median(cclaim)
        if all(len(r) > 26 and r[18] > 0 for r in rows):
            allowed = max(CLOCK_FLOOR_NS, 0.10 * cm)
            clock = statistics.median(r[26] for r in rows)
        else:
            allowed = max(CLOCK_FLOOR_NS, 0.05 * cm,
                          0.03 * statistics.median(r[10] for r in rows))
            allowed += overhead_noise(covh, bovh)
            clock = quantile(covh, 0.25) - quantile(bovh, 0.25)
        drain = quantile([r[9] for r in rows], 0.25) - \
            quantile([r[8] for r in rows], 0.25)
        drain_allowed = max(DRAIN_FLOOR_NS, 0.02 * cm)
        yield (clock / allowed, drain / drain_allowed, path, case, len(rows),
               clock, allowed, drain, drain_allowed, cm, statistics.median(bclaim))


def main(argv):
    top = 15
    if len(argv) > 2 and argv[1] == "--top":
        top = int(argv[2])
        argv = argv[2:]
    if len(argv) < 2:
        sys.exit(__doc__)
    rows = [m for p in argv[1:] for m in margins(p)]
    if not rows:
        sys.exit("check_margins: no timed pairs in the files given")
    rows.sort(key=lambda m: -max(m[0], m[1]))
    print("clock/allowed | drain/allowed | case | pairs | clock us (allowed) "
          "| drain us (allowed) | candidate claim us")
    for m in rows[:top]:
        print("%.3f | %.3f | %s %s | %d | %.1f (%.1f) | %.2f (%.1f) | %.1f"
              % (m[0], m[1], m[2], m[3], m[4], m[5] / 1e3, m[6] / 1e3,
                 m[7] / 1e3, m[8] / 1e3, m[9] / 1e3))
    print("%d cases: clock at most %.3f of its bound, drain at most %.3f"
          % (len(rows), max(m[0] for m in rows), max(m[1] for m in rows)))


if __name__ == "__main__":
    main(sys.argv)
