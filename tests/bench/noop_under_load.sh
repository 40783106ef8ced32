#!/bin/sh
# tests/bench/noop_under_load.sh - the host A/A run (noop agent over the
# c2c suite, default timing) while LOAD busy loops (default 7) compete for
# the CPUs: does the evaluator reject honest candidates, or drift, on a
# crowded machine?  Prints the run's summary (task, status, speedup, CI)
# and the load.  usage: [LOAD=7] [B=build] tests/bench/noop_under_load.sh
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
LOAD=${LOAD:-7}
STORE=$(mktemp -d /tmp/arena-noop-load.XXXXXX)
. "$ROOT/tests/bench/busy_loops.sh"
trap 'stop_busy_loops; rm -rf "$STORE"' EXIT
start_busy_loops "$LOAD"
echo "noop_under_load: $LOAD busy loops on $(nproc) CPUs, commit $(git -C "$ROOT" rev-parse --short HEAD), $(date -u +%FT%TZ)"
t0=$(date +%s)
"$ROOT/$B/arena" --store "$STORE" run "$ROOT/example_configs/noop_host.yaml" \
	> "$STORE/run.log" 2>&1
rc=$?
echo "arena run: exit $rc in $(($(date +%s) - t0)) s"
csv=$(ls "$STORE"/runs/*/summary.csv)
awk -F, 'NR > 1 { printf "%s | %s | %s [%s, %s]\n", $1, $6, $4, $9, $10 }' "$csv"
grep -h "_message: '" "$STORE"/runs/*/tasks/*/task_result.yaml | sort | uniq -c | head
# Cases the clock check flagged once and that were timed again.
echo "cases timed twice (the clock check failed once):"
grep -h "clock check failed once" "$STORE"/runs/*/tasks/*/logs/timing.tsv 2>/dev/null |
	sed 's/^# *//' | cut -c1-200
