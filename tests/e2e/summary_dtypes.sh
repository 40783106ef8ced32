#!/bin/sh
# tests/e2e/summary_dtypes.sh - summary.csv keeps one type per column, as
# docs/results.md documents every column: checked (tests/e2e/csv_dtypes.py)
# on a run caught half-way (pending rows beside finished ones) and on the
# same run finished, with two agent configurations (Variant), a candidate
# that does not compile, held-out cases on one task only, and an agent
# whose cost is unknown beside one whose cost is 0.  With pandas (Debian's
# python3-pandas) when it is installed, else with Python's csv module.
# The compile error's event line keeps its separator.
. "$(dirname "$0")/lib.sh"

PY=""
for p in python3 /usr/bin/python3; do
	command -v "$p" >/dev/null 2>&1 || continue
	[ -z "$PY" ] && PY=$p
	if "$p" -c 'import pandas' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "python3 is not installed"; exit 77; }

for t in good bad; do
	mkdir -p "$T/tasks/p/$t"
	cp "$ROOT/tests/adversarial/task/bytemap/kernel.c" \
	   "$ROOT/tests/adversarial/task/bytemap/reference.c" "$T/tasks/p/$t/"
	cat > "$T/tasks/p/$t/config.yaml" <<EOF
schema: arena/1
description: y = 255 - x over bytes (dtype test, $t).
language: c
editable: [kernel.c]
reference: {file: reference.c, language: c}
signature:
  params: [n]
  args:
    - {name: x, dtype: u8, shape: [n], io: in, init: {dist: randint, low: "0", high: "255"}}
    - {name: y, dtype: u8, shape: [n], io: out}
cases:
  - {id: small, n: 4096}
EOF
done
printf 'cases:\n  - {id: odd, n: 1001}\n' > "$T/tasks/p/good/held_out.yaml"
export ARENA_TASKS_DIR="$T/tasks"
# The command agent breaks p/bad's kernel (a compile error) and leaves
# p/good alone; its cost is not known.  noop's is 0.
cat > "$T/c.yaml" <<'EOF'
agents:
  - {name: plain, template: noop}
  - name: scripted
    template: command
    command: [sh, -c, 'if [ "$ARENA_TASK_ID" = p/bad ]; then echo "int broken(" > kernel.c; fi; echo "Optimized, NA"']
tasks: [p]
device: host
seed: 7
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 6, max_pairs: 30}
EOF
# Created but not executed (a Slurm dry run), then one attempt by a worker:
# a report with pending rows beside a finished one.
"$ARENA" --store "$STORE" slurm "$T/c.yaml" --dry-run >"$T/slurm.log" 2>&1 ||
	fail "arena slurm --dry-run: $(cat "$T/slurm.log")"
run=$(latest_run)
dir=$(run_dir_of "$run")
"$ARENA" --store "$STORE" worker "$run" --index 0 >"$T/w.log" 2>&1 || fail "worker: $(cat "$T/w.log")"
"$ARENA" --store "$STORE" report "$run" >/dev/null || fail "arena report failed"
grep -q ',pending,' "$dir/summary.csv" || fail "no pending row: $(cat "$dir/summary.csv")"
"$PY" "$ROOT/tests/e2e/csv_dtypes.py" "$ROOT/docs/results.md" "$dir/summary.csv" \
	"$dir/summary.json" || fail "summary.csv with pending rows breaks its types"
note "pending and finished rows: every cell of its documented type"

"$ARENA" --store "$STORE" resume "$run" >"$T/r.log" 2>&1 || fail "resume: $(tail -n 20 "$T/r.log")"
grep -q ',pending,' "$dir/summary.csv" && fail "pending rows left after resume"
grep -q ',compile_error,' "$dir/summary.csv" || fail "no compile error row"
grep -q ',scripted,' "$dir/summary.csv" || fail "no Variant column value"
# The event line of the compile error separates the interval from the
# reason (it once read "...[0.000, 0.000]compile error").
cat "$T/w.log" "$T/r.log" > "$T/events.log"
grep -q 'eval_end.*compile_error: score .*\]; compile error' "$T/events.log" ||
	fail "no eval_end line '...]; compile error': $(grep eval_end "$T/events.log")"
# The others are checked, not timed (4096 bytes are below the timing
# floor), and their lines say so.
grep -q 'eval_end.*ok: score .*\]; not timed: .*(correctness only)' "$T/events.log" ||
	fail "no eval_end line saying 'not timed: ... (correctness only)': $(grep eval_end "$T/events.log")"
grep -q '\][a-z]' "$T/events.log" &&
	fail "an event line lacks a separator: $(grep '\][a-z]' "$T/events.log")"
"$PY" "$ROOT/tests/e2e/csv_dtypes.py" "$ROOT/docs/results.md" "$dir/summary.csv" \
	"$dir/summary.json" --finished || fail "summary.csv of a finished run breaks its types"
note "a finished run: every cell of its documented type ($("$PY" -c 'import pandas' 2>/dev/null && echo pandas || echo csv module))"
echo "PASS summary_dtypes"
