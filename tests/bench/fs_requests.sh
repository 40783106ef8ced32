#!/bin/sh
# tests/bench/fs_requests.sh - how many FUSE requests each operation of
# tests/bench/fs_bench.sh costs on a workspace through `arena mount`,
# counted per opcode from the daemon's `--debug` log.  Request counts do
# not depend on the machine's load, so they are the evidence that a change
# to the mount's caching helps even where timings are noisy.
#
#   B=build sh tests/bench/fs_requests.sh [IDLE_S] [MOUNT OPTIONS...]
#
# One daemon (`--debug`, plus MOUNT OPTIONS) serves a private store; on
# one workspace (c2c/gemm plus ~300 small files in 15 directories
# committed with git, as in fs_bench.sh) it runs, each after IDLE_S
# (default 2) seconds of idleness: `git status --porcelain` (three times:
# the first warms the kernel's caches, the others are the
# cold-after-a-pause case fs_bench.sh times), `git clone -q` of the same tree, `fsx_lite -q
# -n 2000 -S 1`.  For each it prints the requests the daemon received
# while it ran (and in the 0.5 s after it, for RELEASE, which the kernel
# sends without waiting), by opcode, and their total.  With KEEP=PREFIX
# set, each operation's slice of the log is kept in PREFIX.<operation>.
set -u
B=${B:-build}
IDLE=${1:-2}
[ $# -gt 0 ] && shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) ARENA="$B/arena"; FSX="$B/tests/helpers/fsx_lite" ;;
	*) ARENA="$ROOT/$B/arena"; FSX="$ROOT/$B/tests/helpers/fsx_lite" ;; esac
export ARENA_TASKS_DIR="${ARENA_TASKS_DIR:-$ROOT/tasks}"
[ -e /dev/fuse ] || { echo "skip: /dev/fuse is missing"; exit 77; }
[ -x "$FSX" ] || { echo "build $FSX first (make $B/tests/helpers/fsx_lite)"; exit 1; }
T=$(mktemp -d /tmp/arena-reqs.XXXXXX)
S="$T/store"; M="$T/m"; LOG="$T/debug.log"
mkdir -p "$M"
cleanup() {
	fusermount3 -u "$M" 2>/dev/null
	[ -f "$T/pid" ] && kill "$(cat "$T/pid")" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

"$ARENA" --store "$S" mount "$M" --debug "$@" >"$LOG" 2>&1 &
echo $! > "$T/pid"
for _ in $(seq 50); do
	[ -e "$M/README" ] && break
	sleep 0.1
done
[ -e "$M/README" ] || { echo "mount failed: $(tail "$LOG")"; exit 1; }

# A run whose agent sleeps, cancelled while it does: a workspace that is
# not final (so writable) and no executor competing for the CPU.
cat > "$T/cfg.yaml" <<CFG
agent: {template: command, command: [sleep, "3"], timeout_seconds: 30}
tasks: [c2c/gemm]
device: host
timing: {case_budget_s: 0.05, blocks: 1, min_pairs: 2, max_pairs: 4, correctness_trials: 3}
CFG
cp "$T/cfg.yaml" "$M/runs/new" || exit 1
RUN=$(cat "$M/runs/new")
for _ in $(seq 100); do
	grep -q '^status: running' "$M/runs/$RUN/status" && break
	sleep 0.1
done
echo cancel > "$M/runs/$RUN/control"
for _ in $(seq 100); do
	grep -q 'executor: not running' "$M/runs/$RUN/status" && break
	sleep 0.2
done
REAL="$S/runs/$RUN/tasks/c2c_gemm/workspace"
W="$M/runs/$RUN/tasks/c2c_gemm/workspace"
for d in $(seq 15); do
	mkdir -p "$REAL/src$d"
	for f in $(seq 20); do echo "int f${d}_$f(void) { return $f; }" \
		> "$REAL/src$d/f$f.c"; done
done
(cd "$REAL" && git init -q && git add -A &&
	git -c user.email=b@b -c user.name=bench commit -qm base) || exit 1
git clone -q --bare "$REAL" "$T/src.git" || exit 1

# count NAME CMD...: runs CMD in the workspace after the idle pause and
# prints the opcodes the daemon logged meanwhile.
count() {
	name=$1; shift
	sleep "$IDLE"
	from=$(wc -l < "$LOG")
	(cd "$W" && "$@" >/dev/null) || { echo "$name failed"; exit 1; }
	sleep 0.5
	[ -n "${KEEP:-}" ] && tail -n +"$((from + 1))" "$LOG" \
		> "$KEEP.$(echo "$name" | tr ' ' _)"
	tail -n +"$((from + 1))" "$LOG" |
		sed -n 's/.*opcode: \([A-Z_]*\) .*/\1/p' | sort | uniq -c |
		sort -rn | awk -v n="$name" '
			{ t += $1; s = s sprintf(" %s %d", $2, $1) }
			END { printf "%-14s total %5d:%s\n", n, t, s }'
}
count "status warm-up" git status --porcelain
count "status cold" git status --porcelain
count "status cold 2" git status --porcelain
count "clone" git clone -q "$T/src.git" clone
rm -rf "$REAL/clone"
count "fsx_lite" "$FSX" -q -n 2000 -S 1 .
