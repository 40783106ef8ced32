#!/bin/sh
# tests/gpu/aka.sh - AgentKernelArena's real Triton tasks on a GPU (issue
# 13, docs/aka.md): per task, AKA's own verdict (its compile and
# correctness commands run unchanged, judged by AKA's rules) beside
# arena's (`arena check-tasks`: can the task be prepared, does its
# harness pass the kernel as shipped and catch a corrupted one; then
# `arena run` with the noop agent: the verdict and the A/A speedup with
# its interval), in one call of at most about nine minutes.
#
# usage: tests/gpu/aka.sh [--deadline S] [--shard K/N] [--jobs J] [--perf]
#                         [--run-only] [SELECTOR...]
#   SELECTOR    folders under the checkout's tasks/ (default: triton2triton
#               instruction2triton, AKA's 196 Triton tasks at d6f7c8a4)
#   --deadline  seconds from the start by which everything, the archive
#               included, is done (default 500): the tasks are taken in a
#               seeded shuffle, so a slice cut by the deadline is spread
#               over the families; what was not reached says so
#   --shard K/N only every N-th task of the shuffled list, from the K-th
#               (1 <= K <= N): N calls with K = 1..N cover the suite
#   --jobs J    tasks prepared (and AKA's commands run) J at a time
#               (default 6 of each; nothing in this phase is timed)
#   --perf      also run AKA's performance commands and record their wall
#               time (AKA's edit -> score cost; slow: about 10 s a task)
#   --run-only  no phase A: neither AKA's commands nor arena's checks, only
#               `arena run` over every task of the shard (each recorded by
#               the run itself): the count of tasks that get a verdict,
#               two to three times as many tasks a call (a check's
#               correctness seeds, mutants and A/A cost about 100 s a task)
# Environment: AKA_DIR (default .aka/AgentKernelArena: scripts/aka-fetch.sh
# makes it from a local mirror; it is ignored by git, never committed, and
# is carried to the GPU machine), ARENA_DEVICE (cuda:0), AKA_CASE_BUDGET
# (seconds of timing per case, default 0.5), AKA_BLOCKS (fresh runner
# blocks per case, default 2).
#
# Three phases: (A) AKA's own commands and arena's task checks, J of each
# at once, until 45% of the deadline (a check records the task into the
# store's cache, so the run does not record it again); (B) `arena run`
# with the noop agent over the tasks whose check finished, alone on the
# GPU, cancelled at the deadline less 50 s (`arena cancel`, then `arena
# report`); (C) the table.
# $OUT gets aka.txt (the summary), aka.tsv (one line per task, both
# verdicts side by side), aka-summary.csv (the run's summary.csv) and
# aka.tgz (the run's reports, AKA's dashboard files, every task_result.yaml
# with its attempt's timing.tsv and aka-prepare.log,
# AKA's command logs and the checks' output).
. "$(dirname "$0")/lib.sh"
deadline=500 shard=1/1 jobs=6 perf= run_only=false
while [ $# -gt 0 ]; do
	case $1 in
	--deadline) deadline=$2; shift 2 ;;
	--shard) shard=$2; shift 2 ;;
	--jobs) jobs=$2; shift 2 ;;
	--perf) perf=--perf; shift ;;
	--run-only) run_only=true; shift ;;
	-*) echo "aka.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || set -- triton2triton instruction2triton
AKA_DIR=${AKA_DIR:-$ROOT/.aka/AgentKernelArena}
case $AKA_DIR in /*) ;; *) AKA_DIR=$ROOT/$AKA_DIR ;; esac
PY=${ARENA_PYTHON:-python3}
CB=${AKA_CASE_BUDGET:-0.5}
BLOCKS=${AKA_BLOCKS:-2}
t_start=$(date +%s)
t_a=$((t_start + deadline * 45 / 100))
t_b=$((t_start + deadline - 50))
W=$OUT/w
rm -rf "$W"
mkdir -p "$W/own" "$W/check"
SUMMARY=$OUT/aka.txt
: > "$SUMMARY"
note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
left_until() { echo $(($1 - $(date +%s))); }
commit=${ARENA_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')}

note "# aka.sh on $DEVICE, arena $commit, $(date -u +%FT%TZ), deadline $deadline s, shard $shard, selectors: $*"
if [ ! -d "$AKA_DIR/tasks" ]; then
	note "aka.sh: FAIL: no AgentKernelArena checkout at $AKA_DIR (make one with scripts/aka-fetch.sh and carry it)"
	exit 2
fi
note "AKA checkout $AKA_DIR at $(cat "$AKA_DIR/.aka-commit" 2>/dev/null || echo 'unknown commit')"
"$PY" -c 'import torch, triton, yaml; print("torch", torch.__version__, "triton", triton.__version__, "cuda", torch.cuda.is_available())' \
	> "$W/stack.txt" 2>&1
note "stack: $(tail -n 1 "$W/stack.txt")"
timeout 60 "$ARENA" --store "$STORE" doctor > "$W/doctor.txt" 2>&1

# ---- the tasks ----------------------------------------------------------------
: > "$W/listing.txt"
for s in "$@"; do
	"$ARENA" tasks "aka:$AKA_DIR/tasks/$s" >> "$W/listing.txt" 2>&1 ||
		note "arena tasks aka:$AKA_DIR/tasks/$s: exit $? (see listing.txt)"
done
# Ids in a seeded shuffle, then the shard.
awk '$1 ~ /^aka\// { print $1 }' "$W/listing.txt" | sort -u |
	"$PY" -c 'import random, sys
ids = sys.stdin.read().split()
random.Random(13).shuffle(ids)
k, n = (int(x) for x in sys.argv[1].split("/"))
print("\n".join(ids[k - 1::n]))' "$shard" | grep . > "$W/tasks.txt"
ntasks=$(wc -l < "$W/tasks.txt")
note "tasks: $(awk '$1 ~ /^aka\//' "$W/listing.txt" | wc -l) listed, $(grep -c 'SKIPPED: ' "$W/listing.txt") of them skipped from the folder alone; $ntasks in this shard"
[ "$ntasks" -gt 0 ] || { note "aka.sh: FAIL: no task selected"; exit 1; }

# ---- A: AKA's own commands and arena's checks ---------------------------------
# one_own ID / one_check ID: one task each; nothing starts after t_a and
# nothing runs past it.
safe() { echo "$1" | tr '/' '_'; }
one_own() {
	n=$(left_until "$t_a"); [ "$n" -gt 5 ] || return 0
	d=$W/own/$(safe "$1"); mkdir -p "$d"
	line=$(timeout -k 5 "$n" "$PY" "$ROOT/tests/gpu/aka_side.py" own \
		"$AKA_DIR/tasks/${1#aka/}" "$d" --timeout 300 --aka-root "$AKA_DIR" $perf 2>"$d/err")
	rc=$?
	[ $rc -eq 0 ] && [ -n "$line" ] || line="-	-	ERROR	-	-	aka_side.py exit $rc: $(tail -n 1 "$d/err" | cut -c1-120)"
	[ $rc -eq 124 ] && line="-	-	NOT_FINISHED	-	-	phase deadline"
	printf '%s\t%s\n' "$1" "$line" > "$d/line"
	rm -rf "$d/ws"
}
# A check that met the store's database still being initialised by
# another (arena.db "database is locked": the store's open does not wait
# for that) is run again, up to twice.
one_check() {
	for try in 1 2 3; do
		n=$(left_until "$t_a"); [ "$n" -gt 5 ] || return 0
		timeout -k 5 "$n" "$ARENA" --store "$STORE" check-tasks \
			"aka:$AKA_DIR/tasks/${1#aka/}" --device "$DEVICE" \
			> "$W/check/$(safe "$1").txt" 2>&1
		grep -q 'arena.db: cannot initialise: database is locked' \
			"$W/check/$(safe "$1").txt" || return 0
		sleep "$try"
	done
}
pool() {	# FUNCTION: runs it on each task of tasks.txt, $jobs at a time
	running=0
	while read -r id; do
		[ "$(left_until "$t_a")" -gt 5 ] || break
		"$1" "$id" &
		running=$((running + 1))
		if [ $running -ge "$jobs" ]; then wait; running=0; fi
	done < "$W/tasks.txt"
	wait
}
if $run_only; then
	: > "$W/own.tsv"
	: > "$W/check.txt"
	cp "$W/tasks.txt" "$W/run_tasks.txt"
	t_b=$((t_start + deadline - 40))
	note "phase A: not run (--run-only); every task of the shard goes to the run"
else
	t0=$(now)
	pool one_own &
	pid_own=$!
	pool one_check &
	pid_check=$!
	wait $pid_own $pid_check
	cat "$W"/own/*/line > "$W/own.tsv" 2>/dev/null
	cat "$W"/check/*.txt > "$W/check-tasks.txt" 2>/dev/null
	# One line per task, "ID OK|SKIPPED|FLAGGED|INVALID|ERROR: DETAIL".
	"$PY" "$ROOT/tests/gpu/aka_side.py" checks "$W/check-tasks.txt" > "$W/check.txt"
	note "phase A (AKA's commands and arena's checks, $jobs + $jobs at a time): $(elapsed "$t0") s; AKA's commands ran on $(grep -c . "$W/own.tsv") tasks, arena checked $(grep -cE '^aka/[^ ]+ (OK|SKIPPED|FLAGGED|ERROR)' "$W/check.txt")"
	sed -n 's/^\(aka\/[^ ]*\) \(OK\|SKIPPED\|FLAGGED\): .*/\1/p' "$W/check.txt" |
		sort -u > "$W/run_tasks.txt"
fi
gpu_procs=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c .)
note "processes on the GPU before timing: $gpu_procs"

# ---- B: arena run, noop, over the checked tasks ------------------------------
run=
if [ -s "$W/run_tasks.txt" ] && [ "$(left_until "$t_b")" -gt 20 ]; then
	cfg=$W/noop.yaml
	{
		echo "# written by tests/gpu/aka.sh"
		echo "agent: {template: noop}"
		echo "task_roots: {aka: \"$AKA_DIR\"}"
		echo "tasks:"
		sed 's/^/  - /' "$W/run_tasks.txt"
		echo "device: $DEVICE"
		echo "seed: 1"
		echo "repeats: 1"
		echo "timing: {case_budget_s: $CB, blocks: $BLOCKS, min_pairs: 10, max_pairs: 200}"
	} > "$cfg"
	t0=$(now)
	"$ARENA" --store "$STORE" run "$cfg" > "$W/run.log" 2>&1 &
	pid_run=$!
	while kill -0 $pid_run 2>/dev/null && [ "$(left_until "$t_b")" -gt 0 ]; do
		sleep 2
	done
	run=$(sed -n 's/^run \([^ ]*\).*/\1/p' "$W/run.log" | head -n 1)
	if kill -0 $pid_run 2>/dev/null; then
		[ -n "$run" ] && "$ARENA" --store "$STORE" cancel "$run" >> "$W/run.log" 2>&1
		i=0
		while kill -0 $pid_run 2>/dev/null && [ $i -lt 30 ]; do
			sleep 1; i=$((i + 1))
		done
		kill $pid_run 2>/dev/null && note "arena run: still running 30 s after cancel; stopped"
		wait $pid_run 2>/dev/null
		note "arena run: cancelled at the deadline"
	else
		wait $pid_run
		note "arena run: exit $?"
	fi
	[ -n "$run" ] && "$ARENA" --store "$STORE" report "$run" > "$W/report.txt" 2>&1
	note "phase B (arena run over $(wc -l < "$W/run_tasks.txt") tasks, case budget $CB s, $BLOCKS blocks): $(elapsed "$t0") s"
else
	note "phase B: no checked task or no time left; arena run not started"
fi

# ---- C: the table -----------------------------------------------------------
rd=${run:+$STORE/runs/$run}
sum=${rd:+$rd/summary.csv}
[ -n "$sum" ] && [ -f "$sum" ] && cp "$sum" "$OUT/aka-summary.csv"
"$PY" "$ROOT/tests/gpu/aka_side.py" table "$W/own.tsv" "$W/check.txt" \
	"${sum:-/nonexistent}" "$W/tasks.txt" "$OUT/aka.tsv" | tee -a "$SUMMARY"
if [ -n "$rd" ] && [ -d "$rd" ]; then
	mkdir -p "$W/run"
	cp "$rd/report.txt" "$rd/summary.csv" "$W/run/" 2>/dev/null
	cp -R "$rd/reports" "$W/run/" 2>/dev/null
	for r in "$rd"/tasks/*/task_result.yaml; do
		[ -f "$r" ] && cp "$r" "$W/run/$(basename "$(dirname "$r")").yaml"
	done
	# Each attempt's timing.tsv and preparation log: where its seconds
	# and its A/A's noise went.
	for l in "$rd"/tasks/*/logs; do
		[ -d "$l" ] || continue
		t=$(basename "$(dirname "$l")")
		for f in timing.tsv aka-prepare.log; do
			[ -f "$l/$f" ] && cp "$l/$f" "$W/run/$t.$f"
		done
	done
fi
tar -czf "$OUT/aka.tgz" -C "$OUT" w 2>/dev/null && rm -rf "$W"
note "aka.sh: done in $(( $(date +%s) - t_start )) s; details in aka.tgz"
