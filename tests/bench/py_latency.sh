#!/bin/sh
# tests/bench/py_latency.sh - edit -> score latency of a Python task, as an
# agent sees it (issue 12, item 3: goals <= 4 s with --quick, <= 10 s in
# default mode for a small Triton task).  `arena run` with a `command`
# agent (py_latency_agent.sh) that edits its workspace and calls `arena
# eval` through the run's evaluation bridge, NQUICK times with --quick,
# then NDEFAULT times in default mode.  The run's process (and so the
# Python runner's zygote, and the baseline's cached build) lives across the
# agent's evaluations, as in any run; the first evaluation also pays the
# zygote's start, and is reported apart.
# usage: tests/bench/py_latency.sh [TASK] [DEVICE] [NQUICK] [NDEFAULT]
#   (default: triton2triton/rmsnorm_bf16 cuda:0 4 3; on a machine without a
#   GPU: torch2torch/gelu_tanh host)
# Prints one line per evaluation, where each one's time went (the
# evaluator's eval_phases, the bridge's and the client's share, from the
# run's trace; medians per mode after the first) and a summary; writes
# them to $OUT/py_latency.txt when OUT is set, with the final
# evaluation's timeline (py_latency_timeline.txt), its timing.tsv and
# blocks.tsv (py_latency_timing.tsv, py_latency_blocks.tsv) and the
# bridge's trace (py_latency_trace.jsonl).  Exits 1, saying why, when the run
# failed or any evaluation was not ok (the first one's answer is shown:
# an agent whose `arena eval` cannot start reads 0.00 s and no score), so
# that no median is ever read from evaluations that did not happen.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${B:-build}
case $B in /*) ;; *) B=$ROOT/$B ;; esac
ARENA=$B/arena
task=${1:-triton2triton/rmsnorm_bf16}
device=${2:-cuda:0}
nq=${3:-4}
nd=${4:-3}
T=$(mktemp -d "${TMPDIR:-/tmp}/arena-py-latency-XXXXXX")
STORE=${STORE:-$T/store}
trap 'rm -rf "$T"' EXIT INT TERM
[ -x "$ARENA" ] || { echo "skip: $ARENA is not built" >&2; exit 77; }
cfg=$T/latency.yaml
cat > "$cfg" <<EOF
# written by tests/bench/py_latency.sh
agent:
  template: command
  command: [sh, "$ROOT/tests/bench/py_latency_agent.sh", "$ARENA", kernel.py, "$nq", "$nd"]
  timeout_seconds: 900
tasks: [$task]
device: $device
seed: 1
repeats: 1
EOF
t0=$(date +%s)
"$ARENA" --store "$STORE" --tasks-dir "${ARENA_TASKS_DIR:-$ROOT/tasks}" run "$cfg" \
	> "$T/run.log" 2>&1
rc=$?
run=$(ls -t "$STORE/runs" 2>/dev/null | head -n 1)
tsv=$(ls "$STORE/runs/$run"/tasks/*/workspace/latency.tsv 2>/dev/null | head -n 1)
report() {
	printf '%s\n' "$*"
	[ -n "${OUT:-}" ] && printf '%s\n' "$*" >> "$OUT/py_latency.txt"
	return 0
}
[ -n "${OUT:-}" ] && { mkdir -p "$OUT"; : > "$OUT/py_latency.txt"; }
report "py_latency: $task on $device, arena run exit $rc, $(( $(date +%s) - t0 )) s in all"
if [ ! -s "$tsv" ]; then
	report "py_latency: FAIL (no latency.tsv; the run's log follows)"
	tail -n 30 "$T/run.log"
	exit 1
fi
while IFS='	' read -r mode s st sc _; do
	report "  $mode	$s s	$st	score $sc"
done < "$tsv"
# Where each evaluation's time went: the bridge's trace (logs/trace.jsonl,
# one "evaluation" event per `arena eval`, in order) holds the evaluator's
# own eval_seconds and eval_phases and the seconds the bridge served the
# request; what the agent measured beyond that is the client's (the
# `arena eval` process, the socket, the agent's own script).
trace=$(dirname "$(dirname "$tsv")")/logs/trace.jsonl
if [ -s "$trace" ] && command -v python3 > /dev/null; then
	python3 - "$tsv" "$trace" <<'PY' | while IFS= read -r line; do report "$line"; done
import json, statistics, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
evs = []
for l in open(sys.argv[2]):
    try:
        e = json.loads(l)
    except ValueError:
        continue
    if e.get("type") == "evaluation" and e.get("via") == "bridge":
        evs.append(e)
names = ["setup", "build", "runner_start", "correctness", "reference",
         "lock_wait", "peaks", "timing", "teardown"]
def parts(row, e):
    ph = e.get("eval_phases") or {}
    p = [(n, float(ph.get(n, 0))) for n in names]
    ev, served = float(e.get("eval_seconds", 0)), float(e.get("served_seconds", 0))
    p.append(("bridge", max(served - ev, 0.0)))
    p.append(("client", max(float(row[1]) - served, 0.0)))
    return p
def show(p):
    return " ".join("%s %.2f" % (n, v) for n, v in p)
print("py_latency phases (s; the evaluator's own, then the bridge's and the client's):")
table = {}
for i, (row, e) in enumerate(zip(rows, evs)):
    p = parts(row, e)
    print("  %s %d: %s" % (row[0], i + 1, show(p)))
    if i > 0 and row[2] == "ok":
        table.setdefault(row[0], []).append(p)
for m in ("quick", "default"):
    if m in table:
        med = [(n, statistics.median(q[k][1] for q in table[m]))
               for k, (n, _) in enumerate(table[m][0])]
        print("py_latency %s phases, median over %d: %s" % (m, len(table[m]), show(med)))
if len(evs) != len(rows):
    print("py_latency: %d evaluations in the trace, %d in latency.tsv: phases matched in order" % (len(evs), len(rows)))
PY
fi
# The first evaluation starts the zygote; the goals are about the rest.
# Only evaluations that were ok count.
for m in quick default; do
	awk -F'\t' -v m="$m" 'NR > 1 && $1 == m && $3 == "ok" { print $2 }' "$tsv" | sort -n |
		awk -v m="$m" '{ a[NR] = $1 }
		END {
			if (NR == 0) exit
			med = NR % 2 ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2
			printf "py_latency %s: median %.2f s over %d edits (after the first), max %.2f s\n", m, med, NR, a[NR]
		}'
done | while read -r line; do report "$line"; done
# The run's final evaluation (default mode, held-out cases included) is
# the one whose timeline stays in logs/timing.tsv: its marks (runners
# ready, each trial, each case timed) go to $OUT beside the bridge's
# trace, for a look at what the phases above do not split, and the whole
# file (every timed pair's parts: py_latency_timing.tsv, e.g. for
# tests/gpu/timing_report.py), with blocks.tsv.
if [ -n "${OUT:-}" ]; then
	logs=$(dirname "$(dirname "$tsv")")/logs
	grep '^#' "$logs/timing.tsv" > "$OUT/py_latency_timeline.txt" 2>/dev/null
	cp "$logs/timing.tsv" "$OUT/py_latency_timing.tsv" 2>/dev/null
	cp "$logs/blocks.tsv" "$OUT/py_latency_blocks.tsv" 2>/dev/null
	cp "$logs/trace.jsonl" "$OUT/py_latency_trace.jsonl" 2>/dev/null
fi
first=$(head -n 1 "$tsv" | cut -f2)
report "py_latency first evaluation (starts the zygote): $first s"
n=$(wc -l < "$tsv")
bad=$(awk -F'\t' '$3 != "ok"' "$tsv" | wc -l)
[ "$rc" -eq 0 ] && [ "$n" -gt 0 ] && [ "$bad" -eq 0 ] && exit 0
report "py_latency: FAIL: arena run exit $rc, $bad of $n evaluations not ok"
# The agent kept each answer in the workspace (latency.tsv's last column):
# the first that was not ok says why.
answer=$(awk -F'\t' '$3 != "ok" { print $5; exit }' "$tsv")
if [ -n "$answer" ]; then
	report "py_latency: the first of them ($answer) answered:"
	{ head -n 3 "$(dirname "$tsv")/$answer"
	  awk -f "$ROOT/tests/bench/why.awk" "$(dirname "$tsv")/$answer"; } 2>/dev/null |
		while IFS= read -r l; do report "    $l"; done
else
	tail -n 30 "$T/run.log"
fi
exit 1
