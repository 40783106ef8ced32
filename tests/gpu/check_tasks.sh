#!/bin/sh
# tests/gpu/check_tasks.sh - `arena check-tasks` on the GPU tasks, on the
# GPU (the H200), in one call of at most nine minutes: the baseline against
# the reference with every held-out case (written and generated) over
# SEEDS seeds, the output mutants, the A/A (`arena eval --aa`, CASE_BUDGET
# seconds of timing per case), the timing floor, and each task's
# difficulty (the baseline's fraction of the H200's roofline, --record).
#
# usage: tests/gpu/check_tasks.sh [--part K/N] [--deadline S] [SELECTOR...]
#   SELECTOR     arena's task selectors (default: every task whose language
#                is not c: hip2hip, cuda2cuda, instruction2hip and any
#                Python family to come); a task id is a selector, so the
#                "not reached" line of an earlier call can be passed as is
#   --part K/N   only the K-th of N equal slices of those tasks (in
#                `arena tasks` order), e.g. --part 1/2 then --part 2/2
#   --deadline S no task starts after S seconds (default 420); a task still
#                running at S + 100 s is stopped and reported as cut short,
#                so that the call ends within nine minutes
# Environment (besides tests/gpu/lib.sh's): JOBS (tasks checked at once,
# default 3: builds and correctness overlap, timing takes the device's lock
# one task at a time; while that lock was a flock, which is not first come
# first served, 2 tasks waited out their limit at 6 on 2026-12-03 and at 4
# on 2026-12-04; it is a queue since, not yet run here at more than 3),
# SEEDS (default 2), CASE_BUDGET (default 0.5),
# TASK_LIMIT (seconds one task may take, default 300).
#
# Writes under $OUT (TAG is empty, or _KofN with --part):
#   check_tasks$TAG.md    a docs-ready table, one row per task (status, the
#                         checks that failed, mutants caught, A/A, baseline
#                         times, fraction of the roofline)
#   check_tasks$TAG.txt   the summary: each task's status, the failed checks'
#                         details, the tasks not reached and the command for
#                         them
#   check_tasks$TAG.tgz   w/: every task's JSON report (reports/), its
#                         stderr, and the table's inputs
#   measured$TAG.tgz      <family>/<name>/measured.yaml of every task whose
#                         difficulty was recorded: `tar -xzf measured.tgz
#                         -C tasks` in a checkout, then commit
# Exit 0 when every task checked passed and every task was reached.
. "$(dirname "$0")/lib.sh"
part=
deadline=420
while [ $# -gt 0 ]; do
	case $1 in
	--part) part=$2; shift 2 ;;
	--deadline) deadline=$2; shift 2 ;;
	-*) echo "unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
JOBS=${JOBS:-3}
SEEDS=${SEEDS:-2}
CASE_BUDGET=${CASE_BUDGET:-0.5}
TASK_LIMIT=${TASK_LIMIT:-300}
TASKS_ROOT=${ARENA_TASKS_DIR:-$ROOT/tasks}
tag=
[ -n "$part" ] && tag=_$(echo "$part" | tr / o | sed 's/o/of/')
W=$OUT/w
R=$W/reports
SUMMARY=$OUT/check_tasks$tag.txt
rm -rf "$W"
mkdir -p "$R" "$W/measured"
: > "$SUMMARY"
t_start=$(date +%s)
export T_END=$((t_start + deadline)) T_HARD=$((t_start + deadline + 100))
note() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }

# The tasks: every selected one not on the host, then the part's slice.
# (`arena tasks` takes one selector: one call each, first occurrence kept.)
sels="$*"
[ $# -gt 0 ] || set -- all
ids=$(for s in "$@"; do "$ARENA" tasks "$s"; done |
	awk 'NR > 1 && $1 != "TASK" && $3 != "c" && $2 != "INVALID:" && !seen[$1]++ { print $1 }')
if [ -n "$part" ]; then
	k=${part%/*} n=${part#*/}
	ids=$(echo "$ids" | awk -v k="$k" -v n="$n" '
		{ a[NR] = $0 } END { lo = int((k - 1) * NR / n) + 1;
		hi = int(k * NR / n); for (i = lo; i <= hi; i++) print a[i] }')
fi
ntasks=$(echo "$ids" | grep -c .)
commit=${ARENA_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')}
note "# check_tasks.sh on $DEVICE, commit $commit, $(date -u +%FT%TZ)"
note "# $ntasks tasks (${sels:-every GPU task}${part:+, part $part}), $JOBS at a time, $SEEDS seeds, A/A at ${CASE_BUDGET} s per case, deadline ${deadline} s"
[ "$ntasks" -gt 0 ] || { note "no task selected"; exit 1; }
touch "$W/stamp"

# One process per task, so that a call cut short keeps every task that
# finished; --record writes into this tree's tasks/ (copied under
# $W/measured/ when written by this call).
export ARENA STORE R W SEEDS CASE_BUDGET TASK_LIMIT DEVICE TASKS_ROOT SUMMARY
echo "$ids" | xargs -P "$JOBS" -I{} sh -c '
	id={}
	f=$R/$(echo "$id" | tr / _)
	now=$(date +%s)
	if [ "$now" -ge "$T_END" ]; then
		echo "$id" >> "$W/not_reached"
		exit 0
	fi
	lim=$((T_HARD - now))
	[ "$lim" -gt "$TASK_LIMIT" ] && lim=$TASK_LIMIT
	t0=$now
	timeout -k 10 "$lim" "$ARENA" --store "$STORE" check-tasks "$id" \
		--json --record --progress --device "$DEVICE" --seeds "$SEEDS" \
		--case-budget "$CASE_BUDGET" > "$f.json" 2> "$f.err"
	rc=$?
	[ $rc -eq 124 ] || [ $rc -eq 137 ] &&
		echo "$id: stopped after $lim s" >> "$W/cut"
	m=$TASKS_ROOT/$id/measured.yaml
	if [ -n "$(find "$m" -newer "$W/stamp" 2>/dev/null)" ]; then
		mkdir -p "$W/measured/$id"
		cp "$m" "$W/measured/$id/"
	fi
	st=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))[\"tasks\"][0][\"status\"])" "$f.json" 2>/dev/null || echo "no report (exit $rc)")
	echo "  $id: $st ($(( $(date +%s) - t0 )) s)" | tee -a "$SUMMARY"
'

python3 "$(dirname "$0")/check_tasks_table.py" "$OUT/check_tasks$tag.md" \
	"$W/failures.txt" "$R"/*.json > "$W/table.out" 2>&1
table_rc=$?
tee -a "$SUMMARY" < "$W/table.out"
fail=0
[ -s "$W/failures.txt" ] && { note ""; note "## failed checks"; tee -a "$SUMMARY" < "$W/failures.txt"; fail=1; }
[ -s "$W/cut" ] && { note ""; note "## cut short"; tee -a "$SUMMARY" < "$W/cut"; fail=1; }
if [ -s "$W/not_reached" ]; then
	note ""
	note "## not reached ($(grep -c . "$W/not_reached") tasks); run them with:"
	note ". .device/env.sh; OUT=\$OUT sh tests/gpu/check_tasks.sh $(tr '\n' ' ' < "$W/not_reached")"
	fail=1
fi
nrec=$(find "$W/measured" -name measured.yaml | grep -c .)
note ""
note "# $nrec measured.yaml recorded (measured$tag.tgz); $(( $(date +%s) - t_start )) s in all"
(cd "$W/measured" && tar -czf "$OUT/measured$tag.tgz" .)
(cd "$OUT" && tar -czf "check_tasks$tag.tgz" w)
rm -rf "$W"
[ $table_rc -eq 0 ] && [ $fail -eq 0 ]
