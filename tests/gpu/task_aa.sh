#!/bin/sh
# tests/gpu/task_aa.sh - a quick health check of GPU tasks on a real GPU:
# for every hip/cuda task under the selectors, `arena eval TASK --aa
# --held-out --quick` (the baseline against its reference on the visible
# and held-out cases, then a short A/A of the baseline against itself),
# JOBS evaluations at a time, until a deadline.  Writes $OUT/task_aa.txt
# (task | status | speedup [CI] | seconds | first error) and each
# evaluation's output and logs under $OUT/task_aa/.  All share one store,
# so the device lock keeps their timing phases apart.  It is a first look, not
# the suite's acceptance (that is `arena check-tasks`): a quick A/A has
# wide intervals.
#
# usage: tests/gpu/task_aa.sh [--deadline SECONDS] [--jobs N] SELECTOR...
. "$(dirname "$0")/lib.sh"
deadline=420
jobs=${JOBS:-3}
while [ $# -gt 0 ]; do
	case $1 in
	--deadline) deadline=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	-*) echo "task_aa.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- hip2hip cuda2cuda instruction2hip
D=$OUT/task_aa
mkdir -p "$D"
end=$(($(date +%s) + deadline))
list=$D/tasks.list
: > "$list"
for sel in "$@"; do
	"$ARENA" tasks "$sel" 2>/dev/null |
		awk 'NR > 1 && $3 ~ /^(hip|cuda|triton|python)$/ { print $1 }' >> "$list"
done
# one_task TASK: one evaluation, skipped once the deadline has passed.
one_task() {
	t=$1 n=$(echo "$1" | tr / _)
	if [ "$(date +%s)" -ge "$end" ]; then
		echo "$t | not run (deadline) | | |" > "$D/$n.row"
		return 0
	fi
	t0=$(now)
	"$ARENA" --store "$STORE" eval "$t" --aa --held-out --quick \
		--case-budget "${CASE_BUDGET:-0.2}" --logs "$D/$n-logs" \
		> "$D/$n.yaml" 2>&1
	s=$(elapsed "$t0")
	st=$(field status < "$D/$n.yaml")
	sp=$(field speedup_ratio < "$D/$n.yaml")
	ci=$(sed -n 's/^speedup_ci: //p' "$D/$n.yaml" | head -n 1)
	err=$(grep -E '^(compilation|correctness|speedup_calculation)_error_message: [^n]' \
		"$D/$n.yaml" | head -n 1 | cut -c1-240)
	[ -n "$st" ] || err="$(tail -n 2 "$D/$n.yaml" | tr '\n' ' ' | cut -c1-240)"
	echo "$t | ${st:-no result} | $sp $ci | $s | $err" > "$D/$n.row"
}
i=0
while read -r t; do
	one_task "$t" &
	i=$((i + 1))
	[ $((i % jobs)) -eq 0 ] && wait
done < "$list"
wait
{
	echo "# task_aa.sh on $DEVICE, $(date -u +%FT%TZ), $(wc -l < "$list") tasks"
	echo "task | status | speedup [CI] | seconds | first error"
	for r in "$D"/*.row; do cat "$r"; done
} > "$OUT/task_aa.txt"
ok=$(grep -c ' | ok | ' "$OUT/task_aa.txt")
echo "task_aa: $ok of $(wc -l < "$list") ok" | tee -a "$OUT/task_aa.txt"
