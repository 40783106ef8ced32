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
#   build   `cc -O2 -c` of a c2c kernel (c2c/gemm)
#   status  `git status --porcelain` in a workspace of ~300 files
#   score   open+read+close of score on unchanged sources
# 20 x ROUNDS iterations; each times every configuration once, in rotating
# order; the medians and their ratios to native are printed.
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
names = list(dirs)

def timed(cmd, d):
    t = time.perf_counter()
    subprocess.run(cmd, cwd=d, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t

def score(d):
    t = time.perf_counter()
    with open(os.path.join(d, "..", "score")) as f:
        f.read()
    return (time.perf_counter() - t) * 1000

def cc(k):
    return ["cc", "-O2", "-I", inc, "-c", "kernel.c", "-o",
            "kernel-%s.o" % k.replace(" ", "")]
st = ["git", "status", "--porcelain"]
res = {k: {"build": [], "status": [], "score": []} for k in names}
# Each iteration times every configuration once, in a rotating order, so
# that drift in the machine's load hits all of them alike.
for i in range(20 * rounds):
    order = names[i % 3:] + names[:i % 3]
    for k in order:
        res[k]["build"].append(timed(cc(k), dirs[k]))
        res[k]["status"].append(timed(st, dirs[k]))
        if k != "native":
            res[k]["score"].append(score(dirs[k]))
med = {k: {m: statistics.median(v) if v else 0 for m, v in x.items()}
       for k, x in res.items()}
n = med["native"]
print(f"{20 * rounds} interleaved iterations, medians per operation")
print(f"{'':12} {'cc -O2 -c (ms)':>18} {'git status (ms)':>18} "
      f"{'cat score (ms)':>15}")
for k in names:
    m = med[k]
    sc = f"{m['score']:.2f}" if k != "native" else "-"
    print(f"{k:12} {m['build'] * 1000:8.1f} ({m['build'] / n['build']:4.2f}x)"
          f"   {m['status'] * 1000:8.1f} ({m['status'] / n['status']:5.2f}x)"
          f"   {sc:>12}")
PY
rc=$?
rm -f "$REAL"/kernel-*.o
exit $rc
