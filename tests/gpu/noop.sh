#!/bin/sh
# tests/gpu/noop.sh - an A/A run over the GPU suite: `arena run` with the
# noop agent (it changes nothing, so every implemented task is its
# baseline timed against itself).  Checks: every speedup within 1.00 +-
# 0.02, and the median relative half-width of the speedup intervals <= 1%.
# Unimplemented tasks (instruction2hip) fail correctness under noop (their
# workspace is a stub) and are listed but not counted; baselines.sh covers
# them.  Writes $OUT/noop.txt and $OUT/noop-summary.csv; a suite split
# over several runs is judged as a whole with
# tests/gpu/noop_verdict.py A/noop-summary.csv B/noop-summary.csv ...
# usage: noop.sh [SELECTOR...] (default: hip2hip cuda2cuda); tasks come
# from $ARENA_TASKS_DIR when set (arena's own default otherwise);
# NOOP_CASE_BUDGET sets timing.case_budget_s (seconds per case; the
# evaluator's default, 2, when unset).
. "$(dirname "$0")/lib.sh"
TABLE=$OUT/noop.txt
: > "$TABLE"
[ $# -gt 0 ] || set -- hip2hip cuda2cuda
cfg=$STORE/noop-gpu.yaml
{
	echo "# written by tests/gpu/noop.sh"
	echo "agent: {template: noop}"
	printf 'tasks: ['
	sep=
	for s in "$@"; do printf '%s%s' "$sep" "$s"; sep=', '; done
	echo ']'
	echo "device: $DEVICE"
	echo "seed: 1"
	echo "repeats: 1"
	[ -n "${NOOP_CASE_BUDGET:-}" ] && echo "timing: {case_budget_s: $NOOP_CASE_BUDGET}"
} > "$cfg"
say "noop A/A run over $* on $DEVICE ($(date -u +%FT%TZ))"
t0=$(now)
"$ARENA" --store "$STORE" run "$cfg" > "$OUT/noop-run.log" 2>&1
rc=$?
say "arena run: exit $rc, $(elapsed "$t0") s"
run=$(ls -t "$STORE/runs" | head -n 1)
csv=$STORE/runs/$run/summary.csv
if [ ! -f "$csv" ]; then
	say "noop: FAIL (no summary.csv; see noop-run.log)"
	exit 1
fi
cp "$csv" "$OUT/noop-summary.csv"
python3 "$(dirname "$0")/noop_verdict.py" "$csv" >> "$TABLE"
cat "$TABLE" | tail -n +3
grep -q "^noop: PASS" "$TABLE"
