#!/bin/sh
# tests/gpu/check_tasks.sh - `arena check-tasks` on every GPU task, on the
# GPU (the H200): the baseline against the reference with every held-out
# case (written and generated) over SEEDS seeds, the output mutants, the
# A/A, the timing floor, and each task's difficulty (the baseline's
# fraction of the H200's roofline, --record).
#
# usage: tests/gpu/check_tasks.sh [SELECTOR...]   (default: hip2hip
#        cuda2cuda instruction2hip; one family per call keeps a call within
#        9 minutes)
#        tests/gpu/check_tasks.sh --table           (only rebuild the tables
#        from what earlier calls left under $OUT/check-tasks/)
# Environment (besides tests/gpu/lib.sh's): JOBS (tasks checked at once,
# default 4: correctness runs concurrently, timing takes the device's lock
# one task at a time), SEEDS (default 2), AA (full, the default, or quick).
#
# Writes under $OUT:
#   check-tasks/<family>_<name>.json   each task's report (arena's --json)
#   check-tasks/measured/<task id>/measured.yaml  the difficulty, to copy
#                                      into tasks/ and commit
#   check_tasks.md     a docs-ready table: one row per task (status, the
#                      checks that failed, mutants caught, A/A, baseline
#                      times, fraction of the roofline)
#   check_tasks_failures.txt   the full report of every task that failed
# Exit 0 when every task checked passed.
. "$(dirname "$0")/lib.sh"
DIR=$OUT/check-tasks
JOBS=${JOBS:-4}
SEEDS=${SEEDS:-2}
AA=${AA:-full}
mkdir -p "$DIR/measured"

if [ "${1:-}" != --table ]; then
	[ $# -gt 0 ] || set -- hip2hip cuda2cuda instruction2hip
	aaflag=
	[ "$AA" = quick ] && aaflag=--aa-quick
	ids=$("$ARENA" tasks "$@" | awk 'NR > 1 && $3 ~ /^(hip|cuda)$/ { print $1 }')
	echo "check-tasks on $DEVICE: $(echo "$ids" | wc -w) tasks, $JOBS at a time, $SEEDS seeds, A/A $AA ($(date -u +%FT%TZ))"
	# One process per task, so that a call cut short keeps every task
	# that finished; --record writes into this tree's tasks/, copied
	# under $DIR/measured/ for the lead to commit.
	export ARENA STORE DIR SEEDS aaflag DEVICE
	echo "$ids" | xargs -P "$JOBS" -I{} sh -c '
		f=$DIR/$(echo {} | tr / _).json
		"$ARENA" --store "$STORE" check-tasks {} --json --record \
			--device "$DEVICE" --seeds "$SEEDS" $aaflag > "$f.tmp" 2> "$f.err"
		mv "$f.tmp" "$f"
		m=${ARENA_TASKS_DIR:-$(dirname "$ARENA")/../tasks}/{}/measured.yaml
		if [ -f "$m" ]; then mkdir -p "$DIR/measured/{}"; cp "$m" "$DIR/measured/{}/"; fi
		echo "  {}: $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"tasks\"][0][\"status\"])" "$f" 2>/dev/null || echo "no report")"
	'
fi

python3 "$(dirname "$0")/check_tasks_table.py" "$OUT/check_tasks.md" \
	"$OUT/check_tasks_failures.txt" "$DIR"/*.json
