#!/bin/sh
# tests/gpu/excess_probe.sh - the same evaluations repeated, one after
# another, to see how the controller's clock check (the charged excess,
# docs/gpu.md) behaves for a candidate: its status, speedup and charged
# excess per case each time, with and without held launches. For
# questions such as "is this honest candidate's excess a property of its
# code or of one pair of processes?".
#
#   . .device/env.sh; OUT=$OUT sh tests/gpu/excess_probe.sh [--deadline S] LINE...
# Each LINE is "NAME|TASKS_DIR|TASK|WORKSPACE|REPEATS|ENV|OPTIONS":
# TASKS_DIR and WORKSPACE relative to the repository root; ENV is a
# space-separated list of VAR=VALUE for arena (e.g. ARENA_GPU_HOLD_LAUNCH=0),
# OPTIONS extra `arena eval` options (e.g. --quick). The repeats of all
# lines are interleaved (round 1 of every line, then round 2, ...).
# $OUT gets excess_probe.txt (one row per evaluation) and excess_probe.tgz
# (every evaluation's task_result and logs).
. "$(dirname "$0")/lib.sh"
deadline=480
if [ "${1:-}" = --deadline ]; then deadline=$2; shift 2; fi
t_end=$(($(date +%s) + deadline))
EV=$OUT/w/excess_probe
rm -rf "$EV"
mkdir -p "$EV"
TABLE=$OUT/excess_probe.txt
: > "$TABLE"
pack() {
	tar -czf "$OUT/excess_probe.tgz" -C "$OUT/w" excess_probe 2>/dev/null &&
		rm -rf "$EV"
	rmdir "$OUT/w" 2>/dev/null
}
trap pack EXIT
trap 'exit 1' INT TERM

# excess NAME: "case=E/median us" for every timed case.
excess() {
	sed -n -e 's/^# [0-9.]* ms: case \([^:]*\): charged excess \([0-9.]*\) us per sample (median excess \([-0-9.]*\) us.*/\1=\2\/\3/p' \
		"$EV/$1-logs/timing.tsv" 2>/dev/null | tr '\n' ' '
}

say "# excess_probe on $DEVICE, commit ${ARENA_COMMIT:-?}, $(date -u +%FT%TZ)"
say "name | round | status | speedup [interval] | seconds | case=E/median us | reason"
max=0
for line in "$@"; do
	r=$(echo "$line" | cut -d'|' -f5)
	[ "$r" -gt "$max" ] && max=$r
done
round=1
while [ $round -le $max ]; do
	for line in "$@"; do
		IFS='|' read -r name tdir task ws reps envs opts <<EOF
$line
EOF
		[ $round -le "$reps" ] || continue
		if [ "$(date +%s)" -ge $t_end ]; then
			say "deadline: $name round $round not run"
			continue
		fi
		id=$name-$round
		t0=$(now)
		# shellcheck disable=SC2086
		env $envs "$ARENA" --store "$STORE" --tasks-dir "$ROOT/$tdir" eval \
			"$task" --workspace "$ROOT/$ws" --no-cache \
			--logs "$EV/$id-logs" $opts > "$EV/$id.yaml" 2>&1
		s=$(elapsed "$t0")
		y=$EV/$id.yaml
		say "$name | $round | $(field status < "$y") | $(field speedup_ratio < "$y" | cut -c1-6) $(field speedup_ci < "$y") | $s | $(excess "$id")| $(field speedup_calculation_error_message < "$y" | cut -c1-120)"
	done
	round=$((round + 1))
done
