#!/bin/sh
# tests/run.sh - runs arena's test suites and prints one summary line:
#   "tests: N passed, N failed, N skipped"
# Suites: unit (cmocka binaries), fuzz (corpus replay), tree (the rules of
# the source tree: tests/tree), e2e and adversarial (shell scripts under
# tests/e2e and tests/adversarial).  `tests/run.sh unit`
# runs one suite; `tests/run.sh NAME...` runs the tests of those names, as
# the summary and times.tsv name them (e2e/check_tasks.sh,
# adversarial/run.sh, unit/test_eval, fuzz/fuzz_task, tree/rooms.py).  Each test's output goes to $B/test-logs/<name>.log and is
# printed only when it fails.  A test that exits 77 is skipped; its last
# line says why.
#
# Tests run $TEST_JOBS at a time (default 2: CI's two cores; most tests
# spend their time waiting on processes, timing budgets and mounts, not
# computing).  Every test has its own store, scratch directory and mount
# point, and device locks are machine-wide (/tmp/arena-locks), so two
# tests never time on the host at once.  A test that must have the
# machine to itself says so in its source: a line
#   # test-exclusive: REASON        (a script)
#   /* test-exclusive: REASON */    (tests/unit/<name>.c)
# and runs alone, before the others.  Longer tests start first (the
# order below); each result is printed when it ends, with its seconds,
# and $B/test-logs/times.tsv keeps them (name, seconds, result).
B=${B:-build}
suite=${1:-all}
# Test names: their suites are searched, and only they are run.
only=""
case $suite in */*)
	only=" $* "
	suite=all ;;
esac
jobs=${TEST_JOBS:-2}
logs=$B/test-logs
mkdir -p "$logs"
state=$(mktemp -d "${TMPDIR:-/tmp}/arena-tests.XXXXXX") || exit 1
trap 'rm -rf "$state"' EXIT
trap 'exit 130' INT TERM
: > "$logs/times.tsv"
pass=0; fail=0; skip=0; failed=""
t_start=$(date +%s)

run_one() {	# name, command...: prints its result line, writes its status
	name=$1; shift
	log="$logs/$(echo "$name" | tr '/' '_').log"
	start=$(date +%s)
	# A hung test must fail, not stall CI: each gets $TEST_TIMEOUT seconds
	# (default 600, or what a script's "# test-timeout: S" line says),
	# then its whole process group is killed.
	limit=${TEST_TIMEOUT:-}
	for a in "$@"; do
		case $a in *.sh) [ -z "$limit" ] && [ -f "$a" ] &&
			limit=$(sed -n 's/^# test-timeout: \([0-9]*\)$/\1/p' "$a" | head -n 1) ;;
		esac
	done
	limit=${limit:-600}
	timeout -k 10 "$limit" "$@" >"$log" 2>&1
	rc=$?
	[ $rc -eq 124 ] && echo "[timed out after $limit s]" >>"$log"
	secs=$(( $(date +%s) - start ))
	if [ $rc -eq 0 ]; then
		st=pass; echo "PASS $name (${secs}s)"
	elif [ $rc -eq 77 ]; then
		st=skip; echo "SKIP $name: $(tail -n 1 "$log")"
	else
		st=fail
		echo "FAIL $name (exit $rc, ${secs}s); last lines of $log:"
		tail -n 40 "$log" | sed 's/^/    /'
	fi
	printf '%s\t%s\t%s\n' "$name" "$secs" "$st" >>"$logs/times.tsv"
	# Renamed into place: reap() takes a status file that exists as the
	# test's end, and one still being written read as empty, a failure
	# (a passing test was once counted as failed that way).
	_sf=$state/$(echo "$name" | tr '/' '_').status
	echo "$st" >"$_sf.tmp" && mv "$_sf.tmp" "$_sf"
}

skip_one() {	# name, reason: a test that cannot run here
	skip=$((skip + 1)); echo "SKIP $1: $2"
}

# The queue: one line per test, "kind name path", in the order they start.
queue=$state/queue
: > "$queue"
add() { printf '%s %s %s\n' "$1" "$2" "$3" >>"$queue"; }

exclusive() {	# kind path: does the test ask for the machine to itself?
	case $1 in
	script) grep -q '^# test-exclusive:' "$2" ;;
	unit) [ -f "tests/unit/$(basename "$2").c" ] &&
		grep -q 'test-exclusive:' "tests/unit/$(basename "$2").c" ;;
	*) false ;;
	esac
}

if [ "$suite" = all ] || [ "$suite" = e2e ]; then
	for t in tests/e2e/*.sh tests/adversarial/*.sh; do
		[ -f "$t" ] || continue
		case "$t" in *lib.sh) continue ;; esac
		add script "${t#tests/}" "$t"
	done
fi
if [ "$suite" = all ] || [ "$suite" = unit ]; then
	# ARENA_UNIT_SKIP (set by the Makefile where cmocka is missing): the
	# cmocka tests were not built; each is reported skipped with the
	# reason, and a binary left from an older build is not run.
	if [ -n "${ARENA_UNIT_SKIP:-}" ]; then
		for s in tests/unit/test_*.c; do
			[ -f "$s" ] || continue
			skip_one "unit/$(basename "$s" .c)" "$ARENA_UNIT_SKIP"
		done
	fi
	for t in "$B"/tests/test_*; do
		[ -x "$t" ] || continue
		[ -n "${ARENA_UNIT_SKIP:-}" ] && [ -f "tests/unit/$(basename "$t").c" ] && continue
		add unit "unit/$(basename "$t")" "$t"
	done
fi
if [ "$suite" = all ] || [ "$suite" = fuzz ]; then
	for t in "$B"/tests/fuzz_*; do
		[ -x "$t" ] || continue
		add fuzz "fuzz/$(basename "$t")" "$t"
	done
fi
if [ "$suite" = all ] || [ "$suite" = tree ]; then
	for t in tests/tree/*.py; do
		[ -f "$t" ] || continue
		if ! command -v python3 >/dev/null 2>&1; then
			skip_one "${t#tests/}" "python3 is not installed (scripts/deps.sh installs it)"
			continue
		fi
		add tree "${t#tests/}" "$t"
	done
fi

launch() {	# kind name path: runs the test in the background
	case $1 in
	unit) set -- "$2" "$3" ;;
	fuzz) n=$(basename "$3"); set -- "$2" "$3" "tests/fuzz/corpus/${n#fuzz_}" ;;
	tree) set -- "$2" env B="$B" python3 "$3" ;;
	script) set -- "$2" env B="$B" sh "$3" ;;
	esac
	f=$state/$(echo "$1" | tr '/' '_')
	rm -f "$f.status"
	( run_one "$@" >"$f.out" 2>&1 ) </dev/null &
	running="$running $1"
}

# Prints and counts the tests that have ended; keeps the others running.
reap() {
	still=""
	for n in $running; do
		f=$state/$(echo "$n" | tr '/' '_')
		if [ -f "$f.status" ]; then
			cat "$f.out"
			case $(cat "$f.status") in
			pass) pass=$((pass + 1)) ;;
			skip) skip=$((skip + 1)) ;;
			*) fail=$((fail + 1)); failed="$failed $n" ;;
			esac
		else
			still="$still $n"
		fi
	done
	running=$still
}

count() { set -- $running; echo $#; }

drain() {	# waits until no test runs
	while [ -n "$running" ]; do
		reap
		[ -n "$running" ] && sleep 0.2
	done
}

if [ -n "$only" ]; then
	for n in $only; do
		grep -q "^[a-z]* $n " "$queue" ||
			{ echo "tests: no test named $n"; exit 2; }
	done
	while read -r kind name path; do
		case $only in *" $name "*) echo "$kind $name $path" ;; esac
	done <"$queue" >"$queue.only"
	mv "$queue.only" "$queue"
fi

running=""
# Exclusive tests first, each alone; then the others, $jobs at a time.
while read -r kind name path; do
	exclusive "$kind" "$path" || continue
	launch "$kind" "$name" "$path"
	drain
done <"$queue"
while read -r kind name path; do
	exclusive "$kind" "$path" && continue
	while [ "$(count)" -ge "$jobs" ]; do
		sleep 0.2
		reap
	done
	launch "$kind" "$name" "$path"
done <"$queue"
drain
echo "tests: $(( $(date +%s) - t_start )) s of wall time, $jobs at a time (times in $logs/times.tsv)"
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
