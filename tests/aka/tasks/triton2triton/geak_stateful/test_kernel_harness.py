#!/usr/bin/env python3
"""Harness of arena's geak_eval-style fixture: timing and checks live here,
the kernel and its inputs in kernel.py."""
import argparse
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch

from kernel import EVAL_CONFIGS, get_inputs, scale_add, scale_add_reference


def check(cfg):
    x, b, y = get_inputs(**cfg)
    scale_add(x, b, y)
    return torch.allclose(y, scale_add_reference(x, b), atol=1e-5, rtol=1e-5)


def bench(cfg, iters=20):
    x, b, y = get_inputs(**cfg)
    scale_add(x, b, y)
    t0 = time.perf_counter()
    for _ in range(iters):
        scale_add(x, b, y)
    return (time.perf_counter() - t0) * 1e3 / iters


def main():
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--correctness", action="store_true")
    g.add_argument("--full-benchmark", action="store_true")
    args = ap.parse_args()
    torch.manual_seed(42)
    if args.correctness:
        ok = True
        for i, cfg in enumerate(EVAL_CONFIGS):
            good = check(cfg)
            print("  [%d] n=%d  %s" % (i, cfg["n"], "PASS" if good else "FAIL"))
            ok &= good
        if not ok:
            print("CORRECTNESS FAILED")
            sys.exit(1)
        print("All correctness checks passed.")
        return
    lat = [bench(cfg) for cfg in EVAL_CONFIGS]
    print("GEAK_RESULT_LATENCY_MS=%.4f" % math.exp(sum(map(math.log, lat)) / len(lat)))


if __name__ == "__main__":
    main()
