#!/usr/bin/env python3
"""tests/bench/serve_bench.py - the numbers of `arena serve` (issue 17):
full-quality evaluations per hour over a stream of distinct honest
candidates, the latency of one evaluation under that load, and how
throughput grows with concurrent clients; beside them, the same stream
evaluated one after another by `arena eval` in the same run.  A
benchmark, not a test (tests/bench/serve_bench.sh runs it).

Every candidate is a task's own baseline with a distinct comment
appended: honest, never in the evaluation cache, and an A/A pair, so the
speedups printed should sit near 1.0 (their spread is the A/A quality).

usage: serve_bench.py ARENA STORE PER_MODE CLIENTS WORKERS DEVICE_ARGS TASK...
  CLIENTS: comma-separated client counts (e.g. 1,2,4); each count is one
  mode of PER_MODE candidates; "seq" mode (arena eval one after another)
  runs first (unless $SERVE_BENCH_SEQ is 0).  DEVICE_ARGS: the serve options that choose the workers
  ("--workers 2" or "--gpus 0 --per-gpu 3"), one word list.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "docs"))
from serve_client import Client  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
counter = [0]
lock = threading.Lock()


def candidate(task):
    """A distinct honest candidate of task: its editable files, baseline
    text plus a comment naming a fresh number."""
    with lock:
        counter[0] += 1
        n = counter[0]
    tdir = os.path.join(ROOT, "tasks", task)
    cfg = open(os.path.join(tdir, "config.yaml")).read()
    m = re.search(r"^editable:\s*\[([^\]]*)\]", cfg, re.M)
    names = [x.strip().strip("'\"") for x in m.group(1).split(",")]
    stamp = "%d-%d-%f" % (os.getpid(), n, time.time())
    src = {}
    for name in names:
        text = open(os.path.join(tdir, name)).read()
        cm = "\n# bench %s\n" if name.endswith(".py") else "\n/* bench %s */\n"
        src[name] = text + cm % stamp
    return src


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100.0 * (len(v) - 1))))]


def yaml_phases(text):
    """eval_phases of a task_result.yaml (one flow mapping), or None."""
    m = re.search(r"^eval_phases: *\{(.*)\}", text, re.M)
    if not m:
        return None
    out = {}
    for kv in m.group(1).split(","):
        k, _, v = kv.partition(":")
        try:
            out[k.strip()] = float(v)
        except ValueError:
            pass
    return out


def phase_line(name, phases):
    """The median of each phase over a mode's evaluations: where an
    evaluation's time goes (the device's exclusive part is correctness,
    reference and timing; the rest can overlap)."""
    if not phases:
        return
    keys = [k for k in phases[0] if any(p.get(k, 0) > 0 for p in phases)]
    print("%-10s phases, median over %d (s): %s" % (
        name, len(phases), " ".join(
            "%s %.2f" % (k, statistics.median(p.get(k, 0) for p in phases))
            for k in keys)), flush=True)


def summary(name, n, wall, lat, speedups, bad, phases=None):
    rate = 3600.0 * n / wall if wall > 0 else 0
    line = ("%-10s %3d evals in %7.1f s: %7.0f evals/hour; latency "
            "median %6.1f s, p90 %6.1f s" %
            (name, n, wall, rate, statistics.median(lat), pct(lat, 90)))
    if speedups:
        line += "; A/A speedup median %.3f, range %.3f-%.3f" % (
            statistics.median(speedups), min(speedups), max(speedups))
    if bad:
        line += "; %d not ok" % bad
    print(line, flush=True)
    phase_line(name, phases)
    return rate


def seq_mode(arena, store, tasks, per, name):
    lat, sp, bad, ph = [], [], 0, []
    t0 = time.time()
    for i in range(per):
        task = tasks[i % len(tasks)]
        src = candidate(task)
        with tempfile.TemporaryDirectory() as d:
            for k, v in src.items():
                p = os.path.join(d, k)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                open(p, "w").write(v)
            s = time.time()
            cmd = [arena, "--store", store, "eval", task, "--workspace", d]
            out = subprocess.run(cmd, capture_output=True, text=True)
            lat.append(time.time() - s)
            st = re.search(r"^status: *(\S+)", out.stdout, re.M)
            m = re.search(r"^speedup_ratio: *(\S+)", out.stdout, re.M)
            p = yaml_phases(out.stdout)
            if p:
                ph.append(p)
            if st and st.group(1).strip("'\"") == "ok" and m:
                sp.append(float(m.group(1)))
            else:
                bad += 1
    return summary(name, per, time.time() - t0, lat, sp, bad, ph)


def serve_mode(url, tasks, per, clients):
    lat, sp, bad, ph = [], [], [0], []
    todo = list(range(per))

    def client():
        c = Client(url, timeout=3600)
        while True:
            with lock:
                if not todo:
                    return
                i = todo.pop()
            task = tasks[i % len(tasks)]
            s = time.time()
            b = c.submit([{"task": task, "sources": candidate(task)}])
            for a in c.events(b["batch"]):
                r = a["result"] or {}
                with lock:
                    lat.append(time.time() - s)
                    if isinstance(r.get("eval_phases"), dict):
                        ph.append(r["eval_phases"])
                    if r.get("status") == "ok":
                        sp.append(r["speedup_ratio"])
                    else:
                        bad[0] += 1

    t0 = time.time()
    th = [threading.Thread(target=client) for _ in range(clients)]
    for t in th:
        t.start()
    for t in th:
        t.join()
    return summary("serve c=%d" % clients, per, time.time() - t0, lat, sp,
                   bad[0], ph)


def main(argv):
    arena, store, per, clients, workers = argv[:5]
    dev_args = workers.split()
    tasks = argv[5:]
    per = int(per)
    print("%s  commit %s, %s, %d cores, load %s; tasks %s; serve %s" % (
        time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        # On the GPU machine the tree's .git is not the commit sent there.
        os.environ.get("ARENA_COMMIT") or
        subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True).stdout.strip(),
        os.uname().machine, os.cpu_count(),
        " ".join("%.2f" % x for x in os.getloadavg()), " ".join(tasks),
        workers), flush=True)
    # Warm the trusted copies and the baseline/reference builds once, so
    # that no mode pays them.
    seq_mode(arena, store, tasks, len(tasks), "warm-up")
    # SERVE_BENCH_SEQ=0 leaves "seq" out (a GPU call too short for both).
    seq = 0
    if os.environ.get("SERVE_BENCH_SEQ", "1") != "0":
        seq = seq_mode(arena, store, tasks, per, "seq")
    log = open(os.path.join(store, "serve.log"), "w")
    p = subprocess.Popen([arena, "--store", store, "serve", "--listen",
                          "127.0.0.1:0"] + dev_args,
                         stdout=subprocess.PIPE, stderr=log, text=True)
    line = p.stdout.readline()
    m = re.search(r"listening on (\S+)", line)
    if not m:
        print("arena serve did not start: " + line)
        return 1
    url = m.group(1)
    best = 0
    for c in [int(x) for x in clients.split(",")]:
        best = max(best, serve_mode(url, tasks, per, c))
    p.terminate()
    p.wait()
    if seq:
        print("throughput: best serve mode / seq = %.2fx" % (best / seq))
    print("load at the end: %s" % " ".join("%.2f" % x for x in os.getloadavg()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
