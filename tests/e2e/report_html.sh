#!/bin/sh
# tests/e2e/report_html.sh - the HTML pages in a real headless browser
# (Debian's chromium): a run with two agent configurations writes
# report.html beside its other reports; `arena compare --html` and `arena
# report --index` write theirs.  For each page, chromium loads it with no
# console message (the pages fetch nothing and run no script; a control
# page that does try to fetch proves such a message would be seen), the
# numbers read back from the DOM chromium built equal the JSON the page
# was drawn from (summary.json, `arena compare --json`, each run's
# summary.json for the index; tests/e2e/html_numbers.py), and a screenshot
# is kept in $B/test-logs/report_html/.  Skips (77) without chromium or
# python3.  Seven chromium starts: on a loaded 2-core machine (load 4-7,
# beside another test) they took it past run.sh's default 600 s.
# test-timeout: 1200
. "$(dirname "$0")/lib.sh"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "chromium is not installed (scripts/deps.sh installs it)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
SHOTS="$ROOT/$B/test-logs/report_html"
mkdir -p "$SHOTS"

# Loads a page: its DOM into $2, the browser's log into $3, a screenshot
# into $4 (when given).  Chromium's own start-up chatter (dbus, GPU) goes
# to the log too; console messages are its "CONSOLE" lines.
browse() {	# url dom log [png]
	# A private profile: headless chromium writes one, and two tests at
	# once must not share it.
	prof=$(mktemp -d "$T/profile.XXXXXX")
	timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--no-first-run --user-data-dir="$prof" --enable-logging=stderr \
		--v=0 --dump-dom "$1" >"$2" 2>"$3" ||
		fail "chromium could not load $1: $(tail -n 5 "$3")"
	if [ -n "${4:-}" ]; then
		timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu \
			--no-first-run --user-data-dir="$prof" --hide-scrollbars \
			--window-size=1400,2600 --screenshot="$4" "$1" \
			>/dev/null 2>&1 || fail "chromium could not take a screenshot of $1"
		[ -s "$4" ] && head -c 8 "$4" | grep -q PNG || fail "no screenshot in $4"
	fi
}

no_console() {	# log page
	if grep -q 'CONSOLE' "$1"; then
		fail "$2 logs console messages: $(grep 'CONSOLE' "$1" | head -n 5)"
	fi
}

# The control: a page that tries to fetch under the same policy is seen.
cat > "$T/control.html" <<'EOF'
<!DOCTYPE html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>control</title></head><body><img src="http://127.0.0.1:9/x.png"></body></html>
EOF
browse "file://$T/control.html" "$T/control.dom" "$T/control.log"
grep -q 'CONSOLE' "$T/control.log" ||
	fail "the control page's blocked fetch left no console message: the check could not see one"
note "a page that tries to fetch is seen (control)"

# Three small private tasks, two configurations, two repeats: an A/B run.
for t in one two three; do
	mkdir -p "$T/tasks/p/$t"
	cp "$ROOT/tests/adversarial/task/bytemap/kernel.c" \
	   "$ROOT/tests/adversarial/task/bytemap/reference.c" "$T/tasks/p/$t/"
	cat > "$T/tasks/p/$t/config.yaml" <<EOF
schema: arena/1
description: y = 255 - x over bytes (report test, $t).
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
  - {id: wide, n: 8192}
tunables: {UNUSED: [1, 2]}
EOF
done
export ARENA_TASKS_DIR="$T/tasks"
cat > "$T/ab.yaml" <<'EOF'
agents:
  - {name: plain, template: noop}
  - {name: tuned, template: autotune, timeout_seconds: 300}
tasks: [p]
device: host
seed: 5
repeats: 2
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 6, max_pairs: 30}
EOF
"$ARENA" --store "$STORE" run "$T/ab.yaml" >"$T/run.log" 2>&1 || fail "arena run: $(tail -n 20 "$T/run.log")"
run=$(latest_run)
dir=$(run_dir_of "$run")
for f in summary.csv summary.json report.txt report.html; do
	[ -s "$dir/$f" ] || fail "the run directory has no $f"
done
grep -q "report.html" "$T/run.log" || fail "arena run does not point at report.html"

browse "file://$dir/report.html" "$T/run.dom" "$T/run.log2" "$SHOTS/report.png"
no_console "$T/run.log2" "report.html"
python3 "$ROOT/tests/e2e/html_numbers.py" "$T/run.dom" "$dir/summary.json" 100 ||
	fail "report.html's numbers differ from summary.json"
grep -q '<svg' "$T/run.dom" || fail "report.html has no chart"
grep -q 'A/B comparison of the agent configurations' "$T/run.dom" ||
	fail "report.html has no A/B section"
note "report.html: loads clean, its numbers are summary.json's"

# The comparison page and the index.
"$ARENA" --store "$STORE" compare "$run" --json --html "$T/cmp.html" >"$T/cmp.json" ||
	fail "arena compare --html: $(cat "$T/cmp.json")"
browse "file://$T/cmp.html" "$T/cmp.dom" "$T/cmp.log" "$SHOTS/compare.png"
no_console "$T/cmp.log" "the compare page"
python3 "$ROOT/tests/e2e/html_numbers.py" "$T/cmp.dom" "$T/cmp.json" 40 ||
	fail "the compare page's numbers differ from arena compare --json"
note "arena compare --html: loads clean, its numbers are compare --json's"

"$ARENA" --store "$STORE" run "$T/ab.yaml" --run-suffix again >"$T/run2.log" 2>&1 ||
	fail "second run: $(tail -n 20 "$T/run2.log")"
"$ARENA" --store "$STORE" report --index >"$T/idx.out" || fail "arena report --index failed"
[ "$(cat "$T/idx.out")" = "$STORE/index.html" ] || fail "report --index printed $(cat "$T/idx.out")"
browse "file://$STORE/index.html" "$T/idx.dom" "$T/idx.log" "$SHOTS/index.png"
no_console "$T/idx.log" "index.html"
python3 "$ROOT/tests/e2e/html_numbers.py" --index "$T/idx.dom" "$STORE" 18 ||
	fail "the index page's numbers differ from the runs' summary.json"
[ "$(grep -c 'data-run="run_' "$T/idx.dom")" = 2 ] || fail "the index does not list both runs"
grep -q "href=\"runs/$run/report.html\"" "$T/idx.dom" || fail "the index does not link the run's report"
note "arena report --index: loads clean, one row per run, numbers from each summary.json"
echo "screenshots: $SHOTS"
echo "PASS report_html"
