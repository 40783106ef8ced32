#!/bin/sh
# tests/bench/fs_bench.sh - cost of the mount against the same directory
# used natively, measured side by side in one run (STYLE.md §9).
#
#   B=build sh tests/bench/fs_bench.sh [ROUNDS]
#
# Two daemons serve one private store: one with --ws-timeout 0 (the kernel
# caches nothing of a workspace) and one with the default 1 s.  On one
# workspace it measures, alternating native / timeout 0 / timeout 1 in each
# round and reporting medians:
#   build   `cc -O2 -c` of a c2c kernel, 20 times
#   status  `git status --porcelain` in a workspace of ~300 files, 20 times
#   score   open+read+close of score on unchanged sources (latency, ms)
# Results belong in docs/benchmarks.md with the date, machine and commit.
set -u
B=${B:-build}
ROUNDS=${1:-5}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) ARENA="$B/arena" ;; *) ARENA="$ROOT/$B/arena" ;; esac
export ARENA_TASKS_DIR="${ARENA_TASKS_DIR:-$ROOT/tasks}"
[ -e /dev/fuse ] || { echo "skip: /dev/fuse is missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: needs python3"; exit 77; }
T=$(mktemp -d /tmp/arena-bench.XXXXXX)
S="$T/store"; M0="$T/m0"; M1="$T/m1"
mkdir -p "$M0" "$M1"
cleanup() {
	fusermount3 -u "$M0" 2>/dev/null; fusermount3 -u "$M1" 2>/dev/null
	for p in $(cat "$T"/*.pid 2>/dev/null); do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

start() {	# mountpoint timeout
	"$ARENA" --store "$S" mount "$1" --foreground --ws-timeout "$2" \
		>"$1.log" 2>&1 &
	echo $! > "$1.pid"
	for _ in $(seq 50); do
		[ -e "$1/README" ] && return 0
		sleep 0.1
	done
	echo "mount $1 failed: $(cat "$1.log")"; exit 1
}
start "$M0" 0
start "$M1" 1

# A run whose agent sleeps, cancelled at once: a workspace and no
# executor competing for the CPU.
cat > "$T/cfg.yaml" <<CFG
agent: {template: command, command: [sleep, "1"], timeout_seconds: 30}
tasks: [c2c/gemm]
device: host
timing: {case_budget_s: 0.05, blocks: 1, min_pairs: 2, max_pairs: 4, correctness_trials: 3}
CFG
cp "$T/cfg.yaml" "$M1/runs/new" || exit 1
RUN=$(cat "$M1/runs/new")
echo cancel > "$M1/runs/$RUN/control"
for _ in $(seq 100); do
	grep -q 'executor: not running' "$M1/runs/$RUN/status" && break
	sleep 0.2
done
REAL="$S/runs/$RUN/tasks/c2c_gemm/workspace"
W0="$M0/runs/$RUN/tasks/c2c_gemm/workspace"
W1="$M1/runs/$RUN/tasks/c2c_gemm/workspace"
# The first score evaluates; later ones answer from the stored result.
cat "$W1/../score" >/dev/null || exit 1

# ~300 files in 15 directories, committed natively.
for d in $(seq 15); do
	mkdir -p "$REAL/src$d"
	for f in $(seq 20); do echo "int f${d}_$f(void) { return $f; }" \
		> "$REAL/src$d/f$f.c"; done
done
(cd "$REAL" && git init -q && git add -A &&
	git -c user.email=b@b -c user.name=bench commit -qm base) || exit 1

python3 - "$ROUNDS" "$REAL" "$W0" "$W1" "$ROOT/engine/include" <<'PY'
import os, statistics, subprocess, sys, time
rounds, real, w0, w1, inc = int(sys.argv[1]), *sys.argv[2:]
dirs = {"native": real, "timeout 0": w0, "timeout 1": w1}

def build(d):
    t = time.perf_counter()
    for _ in range(20):
        subprocess.run(["cc", "-O2", "-I", inc, "-c", "kernel.c", "-o",
                        "kernel.o"], cwd=d, check=True)
    return time.perf_counter() - t

def status(d):
    t = time.perf_counter()
    for _ in range(20):
        subprocess.run(["git", "status", "--porcelain"], cwd=d, check=True,
                       stdout=subprocess.DEVNULL)
    return time.perf_counter() - t

def score(d):
    p = os.path.join(d, "..", "score")
    lat = []
    for _ in range(50):
        t = time.perf_counter()
        with open(p) as f:
            f.read()
        lat.append((time.perf_counter() - t) * 1000)
    return statistics.median(lat)

res = {k: {"build": [], "status": [], "score": []} for k in dirs}
for r in range(rounds):
    for k, d in dirs.items():
        res[k]["build"].append(build(d))
        res[k]["status"].append(status(d))
        if k != "native":
            res[k]["score"].append(score(d))
med = {k: {m: statistics.median(v) if v else 0 for m, v in x.items()}
       for k, x in res.items()}
n = med["native"]
print(f"rounds: {rounds} (medians)")
print(f"{'':12} {'build 20x cc -O2 (s)':>22} {'git status 20x (s)':>20} "
      f"{'cat score (ms)':>15}")
for k in dirs:
    m = med[k]
    rb = m["build"] / n["build"]
    rs = m["status"] / n["status"]
    sc = f"{m['score']:.2f}" if k != "native" else "-"
    print(f"{k:12} {m['build']:9.3f} ({rb:4.2f}x)      "
          f"{m['status']:9.3f} ({rs:5.2f}x)   {sc:>12}")
PY
rc=$?
rm -f "$REAL/kernel.o"
exit $rc
