#!/usr/bin/env python3
"""What each way of charging a GPU case's excess would charge, from its
timing.tsv (docs/gpu.md section 6, "The charged excess"): per timing of a
case, the excess over the whole sample (e, the excess_ns column: the
candidate's span beyond its claim less the baseline's) and over the `time`
request alone (e_t: each side's wall less its claim) and from the
controller's gate opening to the reply (e_r: each side's reaction less its
claim where the controller opened both runners' gates, the `time`
request's overhead otherwise: timing.c's S_BROVH and S_CROVH), as
timing_gpu.c forms them - consecutive timed pairs of a block averaged into pairs of
pairs - with their medians, the hierarchical bootstrap's lower bound
(blocks, then pairs of pairs within them, 1000 resamples; at 5% for e,
at the strict 0.5% for e_t and e_r: what is charged) and the sign test's
distribution-free lower 5% bound over all pairs of pairs (what names a
gross excess); the floor of the gated `time` request (gpu_floor_excess_ns
over e_r's overheads: the
candidate's lower-decile overhead less the baseline's, or its wall at the
lower twentieth less its median claim less the baseline's lower-decile
overhead, the larger; its point value and strict bootstrap bound over
the pairs, charged too); then the case's point speedup (the median over its pairs
of baseline claim / (candidate claim + charge)) from the claims alone,
as charged now (the largest of e's, e_t's, e_r's and the floor's
bootstrap bounds) and with
the sign test's bounds as well ("sound" charge: the largest of the
four).  On A/A runs (an evaluation's baseline against
itself) the last line sums how often each charge is above 0 and its mean
share of the claim: what a charge costs honest candidates.  Under each
timing, where the noise lies: for e, e_t and the candidate-less-baseline
differences of the sample's parts (gen, the keeper's flush, its probes)
the median, the interquartile range of the pairs of pairs and the spread
of the blocks' medians (offsets between runner processes); then each
process's floor: per block, the lower decile of each side's gate
overhead (reaction or wall, less the claim), and their spread over the blocks (what
limits the floor's bound: ARENA_GPU_RUNNER_CPUS is meant to narrow it).

usage: charge_report.py TIMING.TSV...
"""
import csv
import math
import random
import re
import statistics
import sys

MARK = re.compile(r"# ([0-9.]+) ms: case (\S+): charged excess ")
ALPHA = 0.05
ALPHA_STRICT = 0.005
ITERS = 1000


def median(v):
    return statistics.median(v) if v else float("nan")


def pairs_of_pairs(rows, value):
    """{block: [mean of two consecutive pairs' values]} as excess_of."""
    out = {}
    for b in sorted({r["block"] for r in rows}):
        vals = [value(r) for r in rows if r["block"] == b]
        pp = [(vals[i] + vals[i + 1]) / 2 for i in range(0, len(vals) - 1, 2)]
        if len(vals) == 1:
            pp = vals
        out[b] = pp
    return out


def bootstrap_lo(groups, stat, seed, alpha):
    """max(0, the lower alpha quantile of stat over ITERS hierarchical
    resamples of groups: as many groups, with replacement, then as many
    values of each, with replacement; linearly interpolated)."""
    if not groups:
        return 0.0
    rnd = random.Random(seed)
    stats = []
    for _ in range(ITERS):
        buf = []
        for _ in groups:
            g = groups[rnd.randrange(len(groups))]
            buf.extend(g[rnd.randrange(len(g))] for _ in g)
        stats.append(stat(buf))
    stats.sort()
    pos = alpha * (len(stats) - 1)
    i = int(pos)
    lo = stats[i] + (stats[min(i + 1, len(stats) - 1)] - stats[i]) * (pos - i)
    return max(0.0, lo)


def median_lo(blocks, seed, alpha=ALPHA):
    return bootstrap_lo([v for v in blocks.values() if v], median, seed,
                        alpha)


def sign_lo(values):
    """The largest k-th smallest with P(Bin(m, 1/2) <= k - 1) <= ALPHA
    (stats_median_lower_bound); -inf below 5 values."""
    v = sorted(values)
    m = len(v)
    if m < 5:
        return -math.inf
    cdf, k = 0.0, 0
    for j in range(m):
        cdf += math.comb(m, j) / 2.0 ** m
        if cdf > ALPHA:
            break
        k = j + 1
    return v[k - 1] if k >= 1 else -math.inf


FLOOR_Q = 0.1
FLOOR_MIN_PAIRS = 10
FLOOR_MIN_BLOCKS = 2


def kth_at(v, q):
    return sorted(v)[int(q * (len(v) - 1))]


def gated(r):
    """Whether the controller opened both runners' gates (timing.c)."""
    return (float(r.get("base_react_ns", -1)) > 0 and
            float(r.get("cand_react_ns", -1)) > 0)


def rovh(r, side):
    """A side's gate overhead: its reaction less its claim where both
    gates were the controller's, else its `time` overhead (S_BROVH)."""
    if gated(r):
        return num(r, side + "_react_ns") - num(r, side + "_claim_ns")
    return num(r, side + "_wall_ns") - num(r, side + "_claim_ns")


def floor_stat(rows):
    co = [rovh(r, "cand") for r in rows]
    bo = [rovh(r, "base") for r in rows]
    base = kth_at(bo, FLOOR_Q)
    shift = kth_at(co, FLOOR_Q) - base
    med = (kth_at([num(r, "cand_claim_ns") + rovh(r, "cand") for r in rows],
                  FLOOR_Q / 2) -
           median([num(r, "cand_claim_ns") for r in rows]) - base)
    return max(shift, med)


def floor_charge(rows, seed):
    """(point, strict lower bound floored at 0) as gpu_floor_excess_ns."""
    if len(rows) < FLOOR_MIN_PAIRS:
        return 0.0, 0.0
    blocks = {}
    for r in rows:
        blocks.setdefault(r["block"], []).append(r)
    if len(blocks) < FLOOR_MIN_BLOCKS:
        return floor_stat(rows), 0.0
    return floor_stat(rows), bootstrap_lo(list(blocks.values()), floor_stat,
                                          seed, ALPHA_STRICT)


def spread(blocks):
    """(median, interquartile range, sd of the block medians) in us."""
    flat = sorted(x for v in blocks.values() for x in v)
    if not flat:
        return (float("nan"),) * 3
    q = statistics.quantiles(flat, n=4) if len(flat) > 1 else [flat[0]] * 3
    meds = [median(v) for v in blocks.values() if v]
    sd = statistics.stdev(meds) if len(meds) > 1 else 0.0
    return median(flat) / 1e3, (q[2] - q[0]) / 1e3, sd / 1e3


def timings(path):
    """Each case's timings in file order: (case, [timed rows])."""
    rows, out = {}, []
    with open(path) as f:
        header = None
        for line in f:
            if line.startswith("#"):
                hit = MARK.match(line)
                if hit and hit.group(2) in rows:
                    out.append((hit.group(2), rows.pop(hit.group(2))))
                continue
            fields = line.rstrip("\n").split("\t")
            if header is None:
                header = fields
                continue
            r = dict(zip(header, fields))
            if r.get("kind") != "timed":
                continue
            r["block"] = int(r["block"])
            rows.setdefault(r["case"], []).append(r)
    return out


def num(r, k):
    return float(r[k])


def report(path, totals):
    for case, R in timings(path):
        e = pairs_of_pairs(R, lambda r: num(r, "excess_ns"))
        et = pairs_of_pairs(R, lambda r: (num(r, "cand_wall_ns") -
                                          num(r, "cand_claim_ns")) -
                            (num(r, "base_wall_ns") - num(r, "base_claim_ns")))
        er = pairs_of_pairs(R, lambda r: rovh(r, "cand") - rovh(r, "base"))
        flat = [x for v in e.values() for x in v]
        flat_t = [x for v in et.values() for x in v]
        flat_r = [x for v in er.values() for x in v]
        b, bt = median_lo(e, 1), median_lo(et, 2, ALPHA_STRICT)
        br = median_lo(er, 4, ALPHA_STRICT)
        ngated = sum(1 for r in R if gated(r))
        s, st = max(0.0, sign_lo(flat)), max(0.0, sign_lo(flat_t))
        cm = median([num(r, "cand_claim_ns") for r in R])

        def speedup(charge):
            return median([num(r, "base_claim_ns") /
                           (num(r, "cand_claim_ns") + charge) for r in R])
        fp, fl = floor_charge(R, 3)
        now, sound = max(b, bt, br, fl), max(b, bt, br, fl, s, st)
        print("%s %s: %d pairs (%d gated), claim %.1f us; e median %.1f,"
              " bootstrap %.1f, sign %.1f us; e_t median %.1f, strict"
              " bootstrap %.1f, sign %.1f us; e_r median %.1f, strict"
              " bootstrap %.1f us; floor %.1f, strict bootstrap %.1f us;"
              " speedup claims %.4f, charged %.4f, sound %.4f" %
              (path, case, len(R), ngated, cm / 1e3, median(flat) / 1e3,
               b / 1e3, s / 1e3, median(flat_t) / 1e3, bt / 1e3, st / 1e3,
               median(flat_r) / 1e3, br / 1e3, fp / 1e3, fl / 1e3,
               speedup(0), speedup(now), speedup(sound)))
        totals.append((now / cm, sound / cm, b / cm))
        parts = [("e", e), ("e_t", et), ("e_r", er)]
        for name, col in (("gen", "gen_ns"), ("keeper", "keeper_ns"),
                          ("probe", "probe_ns")):
            parts.append((name, pairs_of_pairs(
                R, lambda r, c=col: num(r, "cand_" + c) - num(r, "base_" + c))))
        print("  where the noise lies, us (pairs of pairs: median, "
              "interquartile range; sd of the block medians): " +
              "; ".join("%s %.1f, %.1f; %.1f" % ((name,) + spread(pp))
                        for name, pp in parts))
        print("  " + process_floors(R))


def process_floors(rows):
    """Each block's lower-decile gate overhead (rovh) per side, in us, and the
    standard deviation of those over the blocks."""
    blocks = {}
    for r in rows:
        blocks.setdefault(r["block"], []).append(r)
    line, sides = [], {"base": [], "cand": []}
    for b in sorted(blocks):
        fl = {}
        for side in sides:
            fl[side] = kth_at([rovh(r, side) for r in blocks[b]],
                              FLOOR_Q) / 1e3
            sides[side].append(fl[side])
        line.append("%d:%.0f/%.0f" % (b, fl["base"], fl["cand"]))
    sd = {k: statistics.stdev(v) if len(v) > 1 else 0.0
          for k, v in sides.items()}
    return ("process floors, us (block: baseline/candidate lower decile of "
            "the gate overhead): %s; sd over blocks %.1f / %.1f" %
            (" ".join(line), sd["base"], sd["cand"]))


def main(argv):
    if not argv:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    totals = []
    for p in argv:
        report(p, totals)
    if totals:
        n = len(totals)
        for i, name in enumerate(("charged now (bootstrap of e, e_t, e_r, floor)",
                                  "sound (bootstrap and sign test)",
                                  "before (bootstrap of e alone)")):
            pos = sum(1 for t in totals if t[i] > 0)
            print("%s: above 0 in %d of %d timings, mean %.3f%% of the "
                  "claim" % (name, pos, n, 100 * sum(t[i] for t in totals) / n))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
