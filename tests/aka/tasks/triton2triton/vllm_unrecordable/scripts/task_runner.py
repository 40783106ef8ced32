#!/usr/bin/env python3
"""Task runner of arena's vllm_unrecordable fixture (AgentKernelArena's
vllm layout, written for arena): it passes the kernel a BanList, an object
of the kernel module's own class."""
import argparse
import importlib.util
import json
import os
import sys
import time

TASK_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCE_FILE = os.path.join(TASK_DIR, "source", "mask_logits.py")
DEVICE = os.environ.get("AKA_FIXTURE_DEVICE", "cpu")

TEST_SHAPES = [(4, 256, 2), (16, 1024, 8)]
WARMUP_ITERATIONS = 3
BENCHMARK_ITERATIONS = 5


def load_module():
    spec = importlib.util.spec_from_file_location("triton_kernel", SOURCE_FILE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def inputs(batch, vocab, nbw, seed):
    import torch
    torch.manual_seed(seed)
    logits = torch.randn(batch, vocab, device=DEVICE)
    ids = torch.randint(0, vocab, (batch, nbw), dtype=torch.int64, device=DEVICE)
    return logits, ids


def run_correctness():
    mod = load_module()
    for i, (batch, vocab, nbw) in enumerate(TEST_SHAPES):
        logits, ids = inputs(batch, vocab, nbw, 42 + i)
        ref = logits.clone()
        ref.scatter_(1, ids, float("-inf"))
        mod.mask_logits(logits, mod.BanList(ids))
        if not bool((logits == ref).all()):
            return False, "shape %d differs" % (i + 1)
    return True, None


def run_performance():
    mod = load_module()
    cases = []
    for i, (batch, vocab, nbw) in enumerate(TEST_SHAPES):
        try:
            logits, ids = inputs(batch, vocab, nbw, 0)
            for _ in range(WARMUP_ITERATIONS):
                mod.mask_logits(logits.clone(), mod.BanList(ids))
            times = []
            for _ in range(BENCHMARK_ITERATIONS):
                work = logits.clone()
                t0 = time.perf_counter()
                mod.mask_logits(work, mod.BanList(ids))
                times.append((time.perf_counter() - t0) * 1e3)
            cases.append({"test_case_id": "perf%d" % (i + 1),
                          "execution_time_ms": sum(times) / len(times),
                          "benchmark_method": "wall_clock",
                          "params": {"batch": batch, "vocab": vocab, "nbw": nbw}})
        except Exception:
            cases.append({"test_case_id": "perf%d" % (i + 1),
                          "execution_time_ms": -1.0,
                          "params": {"batch": batch, "vocab": vocab, "nbw": nbw}})
    return cases


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["compile", "correctness", "performance"])
    mode = ap.parse_args().mode
    os.makedirs(os.path.join(TASK_DIR, "build"), exist_ok=True)
    if mode == "compile":
        load_module()
        print("Compilation: PASS")
    elif mode == "correctness":
        ok, err = run_correctness()
        print("Correctness: %s" % ("PASS" if ok else "FAIL"))
        if err:
            print("Error: %s" % err)
        sys.exit(0 if ok else 1)
    else:
        cases = run_performance()
        with open(os.path.join(TASK_DIR, "build", "performance_report.json"), "w") as f:
            json.dump(cases, f, indent=2)
        print("Performance: measured %d test case(s)" % len(cases))


if __name__ == "__main__":
    main()
