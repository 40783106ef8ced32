#!/bin/sh
# tests/bench/fs_bench.sh - cost of the mount against the same directory
# used natively, measured side by side in one run (STYLE.md §9), in the
# rhythm of an agent: after an idle pause (cold) as well as back to back
# (warm).
#
#   B=build sh tests/bench/fs_bench.sh [ROUNDS] [IDLE_S]
#
# Two daemons serve one private store: the default (entries and
# attributes kept an hour, changes behind the mount reported by inotify)
# and `--ws-timeout 1` (the default before issue 11, for comparison).  On
# one workspace (c2c/gemm plus ~300 small files in 15 directories,
# committed with git) each round measures, for native / default /
# timeout 1 in a rotating order, every operation once, each after IDLE_S
# (default 2) seconds of idleness:
#   status  `git status --porcelain`
#   clone   `git clone -q file://SRC` of a ~300-file repository (a native
#           bare repository) into the workspace, through git's transport
#           (a pack, as from a server: the same work natively and through
#           the mount); removed untimed afterwards
#   local   `git clone -q SRC`, the plain local-path clone: natively git
#           hardlinks SRC's object files (same file system), through the
#           mount it must copy them (the kernel refuses a link across
#           mounts, EXDEV), so this ratio compares different work; shown
#           because it is what a plain clone of a local path costs
#   fsx     `fsx_lite -q -n 2000` (fsx's mix: read, write, truncate, mmap,
#           rename, reopen; tests/helpers/fsx_lite.c)
#   build   `cc -O2 -c` of the kernel
# and, back to back with no pause, `git status` again (warm) and `cat
# score` (open+read+close of ../score on unchanged sources).
# After the rounds, with caller and default daemon free to run anywhere,
# pinned to one CPU, and pinned to two different CPUs: the cost of one
# round trip (`pwrite` of one byte then `fstat`: a WRITE and a GETATTR
# through the mount, the pair fsx_lite repeats; per call, natively and
# through the mount) and fsx_lite back to back (median of 5, natively
# and through the mount).  What the mount adds to fsx_lite is its request
# count (tests/bench/fs_requests.sh) times the cost of a round trip, which
# depends on whether caller and daemon share a CPU.
# With BASE=<another arena binary> (e.g. one built from the commit before
# a change), a third daemon of that binary, default options, is measured
# in the same rotation ("base"), so a change is compared side by side
# under the same load.
# ROUNDS rounds (default 20); medians and their ratios to native are
# printed, with the load average before and after.  Results belong in docs/benchmarks.md with the date, machine
# and commit.
set -u
B=${B:-build}
ROUNDS=${1:-20}
IDLE=${2:-2}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) ARENA="$B/arena"; FSX="$B/tests/helpers/fsx_lite" ;;
	*) ARENA="$ROOT/$B/arena"; FSX="$ROOT/$B/tests/helpers/fsx_lite" ;; esac
export ARENA_TASKS_DIR="${ARENA_TASKS_DIR:-$ROOT/tasks}"
[ -e /dev/fuse ] || { echo "skip: /dev/fuse is missing"; exit 77; }
command -v python3 >/dev/null || { echo "skip: needs python3"; exit 77; }
[ -x "$FSX" ] || { echo "build $FSX first (make $B/tests/helpers/fsx_lite)"; exit 1; }
T=$(mktemp -d /tmp/arena-bench.XXXXXX)
S="$T/store"; MD="$T/mdefault"; M1="$T/m1"; MB="$T/mbase"
mkdir -p "$MD" "$M1" "$MB"
cleanup() {
	fusermount3 -u "$MD" 2>/dev/null; fusermount3 -u "$M1" 2>/dev/null
	fusermount3 -u "$MB" 2>/dev/null
	for p in $(cat "$T"/*.pid 2>/dev/null); do kill "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

start() {	# mountpoint [options]
	m=$1; shift
	bin=$ARENA
	[ "$m" = "$MB" ] && bin=$BASE
	"$bin" --store "$S" mount "$m" --foreground "$@" >"$m.log" 2>&1 &
	echo $! > "$m.pid"
	for _ in $(seq 50); do
		[ -e "$m/README" ] && return 0
		sleep 0.1
	done
	echo "mount $m failed: $(cat "$m.log")"; exit 1
}
start "$MD"
start "$M1" --ws-timeout 1
[ -n "${BASE:-}" ] && start "$MB"

# A run whose agent sleeps, cancelled while it does: a workspace that is
# not final (so writable) and no executor competing for the CPU.
cat > "$T/cfg.yaml" <<CFG
agent: {template: command, command: [sleep, "3"], timeout_seconds: 30}
tasks: [c2c/gemm]
device: host
timing: {case_budget_s: 0.05, blocks: 1, min_pairs: 2, max_pairs: 4, correctness_trials: 3}
CFG
cp "$T/cfg.yaml" "$MD/runs/new" || exit 1
RUN=$(cat "$MD/runs/new")
for _ in $(seq 100); do	# a cancel before the executor starts is lost
	grep -q '^status: running' "$MD/runs/$RUN/status" && break
	sleep 0.1
done
echo cancel > "$MD/runs/$RUN/control"
for _ in $(seq 100); do
	grep -q 'executor: not running' "$MD/runs/$RUN/status" && break
	sleep 0.2
done
REAL="$S/runs/$RUN/tasks/c2c_gemm/workspace"
WD="$MD/runs/$RUN/tasks/c2c_gemm/workspace"
W1="$M1/runs/$RUN/tasks/c2c_gemm/workspace"
WB=
[ -n "${BASE:-}" ] && WB="$MB/runs/$RUN/tasks/c2c_gemm/workspace"
# The first score evaluates; later ones answer from the cache.
cat "$WD/../score" >/dev/null || exit 1

# ~300 files in 15 directories, committed natively; the same tree as a
# native bare repository to clone from.
for d in $(seq 15); do
	mkdir -p "$REAL/src$d"
	for f in $(seq 20); do echo "int f${d}_$f(void) { return $f; }" \
		> "$REAL/src$d/f$f.c"; done
done
(cd "$REAL" && git init -q && git add -A &&
	git -c user.email=b@b -c user.name=bench commit -qm base) || exit 1
git clone -q --bare "$REAL" "$T/src.git" || exit 1

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$ROUNDS" "$IDLE" "$REAL" "$WD" "$W1" "$ROOT/engine/include" \
	"$T/src.git" "$FSX" "$WB" "$(cat "$MD.pid")" <<'PY'
import os, shutil, statistics, subprocess, sys, time
rounds, idle = int(sys.argv[1]), float(sys.argv[2])
real, wd, w1, inc, src, fsx, wb, daemon = sys.argv[3:]
dirs = {"native": real, "default": wd, "timeout 1": w1}
if wb:
    dirs["base"] = wb
names = list(dirs)

def run(cmd, d):
    subprocess.run(cmd, cwd=d, check=True, stdout=subprocess.DEVNULL)

def timed(cmd, d):
    t = time.perf_counter()
    run(cmd, d)
    return time.perf_counter() - t

def score(d):
    t = time.perf_counter()
    with open(os.path.join(d, "..", "score")) as f:
        f.read()
    return time.perf_counter() - t

ops = ["status", "clone", "local", "fsx", "build", "status warm", "score"]
res = {k: {o: [] for o in ops} for k in names}
for i in range(rounds):
    order = names[i % len(names):] + names[:i % len(names)]
    for k in order:
        d = dirs[k]
        time.sleep(idle)
        res[k]["status"].append(timed(["git", "status", "--porcelain"], d))
        time.sleep(idle)
        res[k]["clone"].append(timed(["git", "clone", "-q", "file://" + src,
                                      "clone"], d))
        shutil.rmtree(os.path.join(d, "clone"))
        time.sleep(idle)
        res[k]["local"].append(timed(["git", "clone", "-q", src, "clone"], d))
        shutil.rmtree(os.path.join(d, "clone"))
        time.sleep(idle)
        res[k]["fsx"].append(timed([fsx, "-q", "-n", "2000", "-S",
                                    str(i + 1), "."], d))
        time.sleep(idle)
        res[k]["build"].append(timed(["cc", "-O2", "-I", inc, "-c",
                                      "kernel.c", "-o", "kernel-bench.o"], d))
        res[k]["status warm"].append(timed(["git", "status", "--porcelain"],
                                           d))
        if k != "native":
            res[k]["score"].append(score(d))
    print(f"round {i + 1}/{rounds} done", file=sys.stderr, flush=True)
med = {k: {o: statistics.median(v) * 1000 if v else 0
           for o, v in x.items()} for k, x in res.items()}
n = med["native"]
print(f"{rounds} rounds; cold = after {idle:g} s idle; medians in ms "
      f"(ratio to native)")
print(f"{'':10}" + "".join(f"{o:>19}" for o in ops))
for k in names:
    cells = []
    for o in ops:
        if o == "score":
            cells.append(f"{med[k][o]:19.2f}" if k != "native" else
                         f"{'-':>19}")
        else:
            cells.append(f"{med[k][o]:10.1f} ({med[k][o] / n[o]:5.2f}x)")
    print(f"{k:10}" + "".join(cells))

def pin_daemon(cpus):
    for tid in os.listdir(f"/proc/{daemon}/task"):
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:
            pass    # a worker thread that just ended

def round_trip_us(d, calls=5000):
    """Median over 5 batches of one pwrite + fstat, in microseconds."""
    fd = os.open(os.path.join(d, "roundtrip.bench"),
                 os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
    batches = []
    for _ in range(5):
        t = time.perf_counter()
        for _ in range(calls):
            os.pwrite(fd, b"x", 0)
            os.fstat(fd)
        batches.append((time.perf_counter() - t) / calls * 1e6)
    os.close(fd)
    os.unlink(os.path.join(d, "roundtrip.bench"))
    return statistics.median(batches)

cpus = sorted(os.sched_getaffinity(0))
placements = [("anywhere", set(cpus), set(cpus))]
if len(cpus) >= 2:
    placements += [("same CPU", {cpus[0]}, {cpus[0]}),
                   ("other CPUs", {cpus[0]}, set(cpus[1:]))]
def fsx_ms(d):
    return statistics.median(timed([fsx, "-q", "-n", "2000", "-S", str(s),
                                    "."], d) * 1000 for s in range(1, 6))

print("caller / daemon placement: one pwrite + fstat (us per call); "
      "fsx_lite back to back (ms, median of 5)")
for name, mine, theirs in placements:
    os.sched_setaffinity(0, mine)   # inherited by fsx_lite
    pin_daemon(theirs)
    nat, mnt = round_trip_us(real), round_trip_us(wd)
    fnat, fmnt = fsx_ms(real), fsx_ms(wd)
    print(f"  {name:10}  round trip native {nat:5.1f} mount {mnt:6.1f} "
          f"(+{(mnt - nat) / 2:.1f} per request);  fsx_lite native "
          f"{fnat:6.1f} mount {fmnt:6.1f} ({fmnt / fnat:.2f}x)")
os.sched_setaffinity(0, set(cpus))
pin_daemon(set(cpus))
PY
rc=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -f "$REAL"/kernel-bench.o
exit $rc
