#!/bin/sh
# tests/run.sh - runs arena's test suites and prints one summary line:
#   "tests: N passed, N failed, N skipped"
# Suites: unit (cmocka binaries), fuzz (corpus replay), tree (the rules of
# the source tree: tests/tree), e2e and adversarial (shell scripts under
# tests/e2e and tests/adversarial).  `tests/run.sh unit`
# runs one suite.  Each test's output goes to $B/test-logs/<name>.log and is
# printed only when it fails.  A test that exits 77 is skipped; its last
# line says why.
B=${B:-build}
suite=${1:-all}
logs=$B/test-logs
mkdir -p "$logs"
pass=0; fail=0; skip=0; failed=""

run_one() {	# name, command...
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
		pass=$((pass + 1)); echo "PASS $name (${secs}s)"
	elif [ $rc -eq 77 ]; then
		skip=$((skip + 1)); echo "SKIP $name: $(tail -n 1 "$log")"
	else
		fail=$((fail + 1)); failed="$failed $name"
		echo "FAIL $name (exit $rc, ${secs}s); last lines of $log:"
		tail -n 40 "$log" | sed 's/^/    /'
	fi
}

skip_one() {	# name, reason: a test that cannot run here
	skip=$((skip + 1)); echo "SKIP $1: $2"
}

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
		run_one "unit/$(basename "$t")" "$t"
	done
fi
if [ "$suite" = all ] || [ "$suite" = fuzz ]; then
	for t in "$B"/tests/fuzz_*; do
		[ -x "$t" ] || continue
		n=$(basename "$t"); c=tests/fuzz/corpus/${n#fuzz_}
		run_one "fuzz/$n" "$t" "$c"
	done
fi
if [ "$suite" = all ] || [ "$suite" = tree ]; then
	for t in tests/tree/*.py; do
		[ -f "$t" ] || continue
		if ! command -v python3 >/dev/null 2>&1; then
			skip_one "${t#tests/}" "python3 is not installed (scripts/deps.sh installs it)"
			continue
		fi
		run_one "${t#tests/}" env B="$B" python3 "$t"
	done
fi
if [ "$suite" = all ] || [ "$suite" = e2e ]; then
	for t in tests/e2e/*.sh tests/adversarial/*.sh; do
		[ -f "$t" ] || continue
		case "$t" in *lib.sh) continue ;; esac
		run_one "${t#tests/}" env B="$B" sh "$t"
	done
fi
echo "tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ] || { echo "failed:$failed"; exit 1; }
