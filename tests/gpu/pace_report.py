#!/usr/bin/env python3
"""Where a GPU evaluation's timing went, from its timing.tsv (docs/gpu.md
section 9): per case the pairs, the case's time from its batch buffers to
its end, the time per pair, and what the pair columns account for - both
samples' spans, the keeper's warm-up before each span and its stop after,
the checks after the pair (check_ns: comparisons and reference checks),
the rest of the pair (pair_ns minus those: the controller's work inside
the pair) and the controller's work between pairs (loop_ns); then the
case's set-up before its first pair (runners laid out, batch buffers);
then the checks by kind (the checked column, docs/gpu.md section 6):
pairs compared on windows, whole, and whole with a reference check, each
as count x mean ms; then each block's median ratio (baseline claim /
candidate claim over its timed pairs) from the claims alone and as
charged (the case's charged excess, from its mark, added to every
candidate claim), and, where the evaluation wrote blocks.tsv beside
timing.tsv, both runners' process ids and where they said their buffers
lie (docs/gpu.md section 6, "what differs between the two runners").
Timing.tsv files older than the pace columns (or the checked column)
report those as '-'.

usage: pace_report.py [--tsv] TIMING.TSV...
  --tsv  one tab-separated line per case (for tests/gpu/pace.sh's table)
"""
import csv
import os
import re
import sys

MARK = re.compile(r"# ([0-9.]+) ms: (.*)")
CHARGED = re.compile(r"case (\S+): charged excess ([-0-9.]+) us per sample "
                     r".*handing the outputs over ([-0-9.]+) us")


def median(v):
    v = sorted(v)
    n = len(v)
    if not n:
        return float("nan")
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def charged_ns(marks, case):
    """The case's charged excess per sample (both parts), ns; the last
    mark wins (a case timed a second time)."""
    ns = None
    for _, m in marks:
        hit = CHARGED.match(m)
        if hit and hit.group(1) == case:
            ns = (float(hit.group(2)) + float(hit.group(3))) * 1e3
    return ns


def read_blocks(path):
    """blocks.tsv beside timing.tsv: {(case, block): row}, or {}."""
    bp = os.path.join(os.path.dirname(path) or ".", "blocks.tsv")
    if not os.path.exists(bp):
        return {}
    with open(bp) as f:
        return {(r["case"], int(r["block"])): r
                for r in csv.DictReader(f, delimiter="\t")}


def block_lines(c, R, marks, blocks, out):
    """Each block's median ratio, claims alone and charged, and its
    runners where blocks.tsv names them."""
    T = [r for r in R if r.get("kind") == "timed"]
    charge = charged_ns(marks, c)
    for b in sorted({int(r["block"]) for r in T}):
        B = [r for r in T if int(r["block"]) == b]
        claims = median([float(r["base_claim_ns"]) / float(r["cand_claim_ns"])
                         for r in B])
        charged = ("%.4f" % median([float(r["base_claim_ns"]) /
                                    (float(r["cand_claim_ns"]) + charge)
                                    for r in B])
                   if charge is not None else "-")
        who = ""
        row = blocks.get((c, b))
        if row:
            who = ("; baseline pid %s at %s-%s, candidate pid %s at %s-%s" %
                   (row["base_pid"], row["base_dev_lo"], row["base_dev_hi"],
                    row["cand_pid"], row["cand_dev_lo"], row["cand_dev_hi"]))
        print("    block %d: %d pairs, median ratio %.4f by the claims, "
              "%s charged%s" % (b, len(B), claims, charged, who), file=out)


def ms(ns):
    return ns / 1e6


def report(path, tsv, out):
    lines = open(path).read().splitlines()
    marks = [(float(m.group(1)), m.group(2)) for m in map(MARK.match, lines) if m]
    rows = list(csv.DictReader((l for l in lines if not l.startswith("#")),
                               delimiter="\t"))
    cases = list(dict.fromkeys(r["case"] for r in rows))
    new = rows and "pair_ns" in rows[0]
    blocks = read_blocks(path)
    for c in cases:
        R = [r for r in rows if r["case"] == c]
        n = len(R)

        def at(text, last=False):
            hits = [t for t, m in marks if m.startswith("case %s: %s" % (c, text))
                    or m == "case %s %s" % (c, text)]
            return (hits[-1] if last else hits[0]) if hits else None

        t_ready = at("batch buffers")  # allocated, or lent by the keeper
        t_end = at("timed", last=True)
        t_start = None
        if t_ready is not None:
            before = [t for t, m in marks if t < t_ready and
                      not m.startswith("case %s:" % c)]
            t_start = before[-1] if before else None
        wall = (t_end - t_ready) if t_end is not None and t_ready is not None else None
        setup = (t_ready - t_start) if t_ready is not None and t_start is not None else None

        def mean(col):
            return sum(float(r[col]) for r in R) / n if n else 0.0

        spans = ms(mean("base_span_ns") + mean("cand_span_ns"))
        check = ms(mean("check_ns"))
        if new:
            warm = ms(mean("base_warm_ns") + mean("cand_warm_ns"))
            tail = ms(mean("base_tail_ns") + mean("cand_tail_ns"))
            pair = ms(mean("pair_ns"))
            loop = ms(mean("loop_ns"))
            inner = pair - spans - warm - tail - check
        per_pair = wall / n if wall is not None and n else None
        fmt = lambda v: "-" if v is None else "%.1f" % v
        kinds = []
        for k in ("0", "1", "2"):
            K = [float(r["check_ns"]) for r in R if r.get("checked") == k]
            kinds.append("%dx%.2f" % (len(K), ms(sum(K) / len(K)))
                         if K else ("0" if "checked" in R[0] else "-"))
        if tsv:
            vals = [path, c, str(n), fmt(wall), fmt(per_pair), fmt(spans),
                    fmt(warm) if new else "-", fmt(tail) if new else "-",
                    fmt(check), fmt(inner) if new else "-",
                    fmt(loop) if new else "-", fmt(setup)] + kinds
            print("\t".join(vals), file=out)
            continue
        print("%s: %s: %d pairs in %s ms (%s ms per pair), set-up %s ms" %
              (path, c, n, fmt(wall), fmt(per_pair), fmt(setup)), file=out)
        if new:
            print("    per pair: spans %.1f, warm %.1f, keeper stop %.1f, "
                  "checks %.1f, rest of the pair %.1f, between pairs %.1f "
                  "(ms); unaccounted %s" %
                  (spans, warm, tail, check, inner, loop,
                   fmt(per_pair - pair - loop) if per_pair is not None else "-"),
                  file=out)
            print("    checks by pair: on windows %s, whole %s, whole and "
                  "against the reference %s (pairs x ms)" % tuple(kinds),
                  file=out)
        else:
            print("    per pair: spans %.1f, checks %.1f (ms); no pace columns" %
                  (spans, check), file=out)
        charge = charged_ns(marks, c)
        print("    charged excess %s us per sample" %
              ("-" if charge is None else "%.1f" % (charge / 1e3)), file=out)
        block_lines(c, R, marks, blocks, out)


def main():
    args = sys.argv[1:]
    tsv = "--tsv" in args
    args = [a for a in args if a != "--tsv"]
    if not args:
        print(__doc__.strip().splitlines()[-2], file=sys.stderr)
        return 2
    if tsv:
        print("timing_tsv\tcase\tpairs\tcase_ms\tms_per_pair\tspans_ms\t"
              "warm_ms\ttail_ms\tcheck_ms\tpair_rest_ms\tloop_ms\tsetup_ms\t"
              "checks_windows\tchecks_whole\tchecks_reference")
    for p in args:
        report(p, tsv, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
