#!/bin/sh
# tests/bench/gpu_checks.sh - what the per-pair checks of GPU timing cost
# (docs/gpu.md section 6, "what a pair checks"), two builds side by side
# on the fake GPU: `arena eval task/fakewide --aa` (the baseline against
# itself, no reference checks: the comparison with the baseline's outputs
# and the inputs' check are all that is checked) with the case's n set
# to N, alternately with BEFORE's and AFTER's arena and fake runner,
# ROUNDS times; per evaluation tests/gpu/pace_report.py's milliseconds
# per pair (all of it and the checks, by kind of pair where the build
# records it), then the medians and their ratio.  Both sides run the
# reference checks of a candidate's evaluation (an older build has no
# --timing-only).
# A benchmark, not a test: it prints, it does not judge
# (docs/benchmarks.md has results).
#
# usage: BEFORE=BUILD_DIR [AFTER=build] [N=8388608] [ROUNDS=3]
#            [CASE_BUDGET=1] sh tests/bench/gpu_checks.sh
# A build directory holds arena and tests/arena-runner-fakegpu (make
# build/arena build/tests/arena-runner-fakegpu in another worktree).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
AFTER=${AFTER:-$ROOT/build}
N=${N:-8388608}
ROUNDS=${ROUNDS:-3}
if [ -z "$BEFORE" ]; then
	echo "usage: BEFORE=BUILD_DIR [AFTER=build] sh $0" >&2
	exit 2
fi
for b in "$BEFORE" "$AFTER"; do
	if [ ! -x "$b/arena" ] || [ ! -x "$b/tests/arena-runner-fakegpu" ]; then
		echo "$b: arena or tests/arena-runner-fakegpu is not built" >&2
		exit 2
	fi
done
W=$(mktemp -d "${TMPDIR:-/tmp}/arena-gpu-checks-XXXXXX") || exit 1
dev=$(mktemp -d /dev/shm/arena-fake-gpu-XXXXXX) || exit 1
trap 'rm -rf "$W" "$dev"' EXIT INT TERM
mkdir -p "$W/tasks/task"
cp -r "$ROOT/tests/gpu/fake/task/fakewide" "$W/tasks/task/"
sed -i "s/{id: n512k, n: 524288}/{id: wide, n: $N}/" \
	"$W/tasks/task/fakewide/config.yaml"
grep -q "n: $N}" "$W/tasks/task/fakewide/config.yaml" || {
	echo "tests/gpu/fake/task/fakewide/config.yaml: its case line changed; update $0" >&2
	exit 2
}
export ARENA_FAKE_GPU_DIR=$dev NVCC=$ROOT/tests/gpu/fake/nvcc \
	ARENA_TASKS_DIR=$W/tasks ARENA_DEVICE=cuda:0

# one SIDE BUILD ROUND: an evaluation, its pace line appended to $W/SIDE
one() {
	logs=$W/logs-$1-$3
	ARENA_RUNNER_CUDA=$2/tests/arena-runner-fakegpu \
		"$2/arena" --store "$W/store-$1" --tasks-dir "$W/tasks" eval task/fakewide --aa \
		--no-cache --case-budget "${CASE_BUDGET:-1}" --logs "$logs" \
		> "$W/$1-$3.yaml" 2>&1
	if [ ! -f "$logs/timing.tsv" ]; then
		echo "$1 round $3: no timing.tsv" >&2
		tail -20 "$W/$1-$3.yaml" >&2
		exit 1
	fi
	python3 "$ROOT/tests/gpu/pace_report.py" --tsv "$logs/timing.tsv" |
		tail -n 1 | tee -a "$W/$1" |
		awk -F'\t' -v s="$1" -v r="$3" '{
			printf "%-6s round %d: %d pairs, %s ms per pair, checks %s ms per pair", s, r, $3, $5, $9
			if (NF >= 15)
				printf " (pairs x ms: windows %s, whole %s, with the reference %s)", $13, $14, $15
			printf "\n" }'
}

echo "# gpu_checks.sh: task/fakewide n=$N, $(date -u +%FT%TZ), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$ROUNDS" ]; do
	if [ $((r % 2)) -eq 1 ]; then
		one before "$BEFORE" "$r"
		one after "$AFTER" "$r"
	else
		one after "$AFTER" "$r"
		one before "$BEFORE" "$r"
	fi
	r=$((r + 1))
done
med() {	# FILE COLUMN: the median of a column of pace lines
	cut -f"$2" "$1" | sort -g | awk '{ v[NR] = $1 } END {
		print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
bp=$(med "$W/before" 5) ap=$(med "$W/after" 5)
bc=$(med "$W/before" 9) ac=$(med "$W/after" 9)
awk -v bp="$bp" -v ap="$ap" -v bc="$bc" -v ac="$ac" 'BEGIN {
	printf "median ms per pair: before %.1f, after %.1f (after/before %.3f)\n", bp, ap, ap / bp
	printf "median checks ms per pair: before %.2f, after %.2f (after/before %.3f)\n", bc, ac, ac / bc }'
