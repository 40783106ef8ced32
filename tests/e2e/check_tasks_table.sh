# tests/gpu/check_tasks_table.py, which makes the H200's check-tasks
# table and counts issue 10's A/A coverage from its reports: a retried
# A/A counts by its first try (engine/src/run/check_tasks.c keeps it in
# the detail), an untimed one not at all, and a task without a report is
# a failure.  Fed reports written here.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
cat >"$T/a.json" <<'JSON'
{"tasks": [
 {"task": "f/retried", "status": "ok", "mutants": [],
  "checks": [{"check": "aa", "status": "ok", "detail": "speedup 1.0010 [0.9950, 1.0200] over 3 timed cases; first try 0.9700 [0.9600, 0.9800]"}]},
 {"task": "f/held", "status": "ok", "mutants": [],
  "checks": [{"check": "aa", "status": "ok", "detail": "speedup 0.9990 [0.9950, 1.0030] over 3 timed cases"}]},
 {"task": "f/untimed", "status": "ok", "mutants": [],
  "checks": [{"check": "aa", "status": "skip", "detail": "no visible case was timed"}]}
]}
JSON
echo 'not json' >"$T/f_cut.json"
python3 "$ROOT/tests/gpu/check_tasks_table.py" "$T/t.md" "$T/fail.txt" \
	"$T/a.json" "$T/f_cut.json" >"$T/out" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "exit $rc with a task without a report (want 1): $(cat "$T/out")"
grep -q '^A/A first tries: 1 of 2 intervals hold 1.0 (50.0%); 1 of 2 speedups within 1.00 +- 0.02; speedups 0.9700-0.9990.$' "$T/t.md" ||
	fail "coverage line: $(tail -n 2 "$T/t.md")"
grep -q '^| f/retried | ok |' "$T/t.md" || fail "no row for f/retried: $(cat "$T/t.md")"
grep -q 'f/cut: no report' "$T/fail.txt" || fail "the task without a report is not a failure: $(cat "$T/fail.txt")"
echo ok
