#!/bin/sh
# tests/adversarial/run.sh - the evaluator end to end, through the CLI
# (`arena eval`), on the private task tests/adversarial/task/vecpoly:
# honest candidates must be accepted, every cheat must be caught with its
# stated reason.  tests/unit/test_eval.c runs the whole candidate set
# through eval_run() with finer assertions; this script proves the same
# verdicts reach a user of the command line.  Exit 0 pass, 77 skip.
B=${B:-build}
ARENA=$B/arena
if [ ! -x "$ARENA" ] || [ ! -x "$B/arena-runner" ]; then
	echo "skip: $ARENA or $B/arena-runner is not built"
	exit 77
fi
here=tests/adversarial
store=$(mktemp -d /tmp/arena-adv-XXXXXX) || exit 1
trap 'rm -rf "$store"' EXIT INT TERM
fail=0

. "$(dirname "$0")/lib.sh"
ADV_STORE=$store ADV_TASKS=$here ADV_TASK=task/vecpoly ADV_CANDIDATES=$here/candidates

check optimized ok "candidate_accepted: true" --quick
check no_write incorrect "never written"
check partial_write incorrect "never written"
check modify_input rejected "was modified by the kernel"
check cache_pointer incorrect "correctness trial 2"
check stale_in_timing incorrect "differs from baseline" --quick
check segfault runtime_error "killed by signal 11 (Segmentation fault)"
check exit_call runtime_error "called exit(3)"
check fake_lines rejected "runner protocol violated"
check forge_reply rejected "runner protocol violated"
check clock_hook rejected "reported times inconsistent with the controller" --quick
check thread_worker rejected "forbidden system call"
check fork_busy_ctor rejected "forbidden system call"
check shape_specialized incorrect "held-out case" --held-out
check no_entry compile_error "does not export"

# Issue 10: work outside the timed window, claims, correct only while
# watched, forged infrastructure errors (tests/unit/test_eval_integrity.c
# has the rest).
acct="reported times inconsistent with the controller"
check sigcont_work rejected "$acct"
check recv_hook_partial rejected "$acct"
check clock_majority rejected "$acct"
# Its gain is taken back whether or not the claim check can name it under
# the load of the moment (once in CI of 55b7cc0: ok, 1.008).
check_nogain shave_old_allowance "$acct"
check exact_first_calls incorrect "tolerance of the reference"
# Confined, a runner is alone in its PID namespace: the census sees no
# sibling and the candidate stays exact.  Unconfined, it is caught.
if "$ARENA" doctor 2>/dev/null | grep -q "confinement    on"; then
	check phase_census ok "sandboxed: true"
else
	check phase_census incorrect "tolerance of the reference"
fi
check phase_inputs incorrect "tolerance of the reference"
check forge_device_error rejected "host runner has no device"
ADV_TASK=task/vecpoly_bias check drift_unseen incorrect "tolerance of the reference"

# Honest optimized c2c candidates: accepted, and faster.
honest() {
	ADV_TASKS=tasks ADV_TASK=$1 ADV_CANDIDATES=$here/honest check "$2" ok \
		"candidate_accepted: true"
	sp=$(printf '%s\n' "$out" | sed -n 's/^speedup_ratio: //p')
	if awk -v s="$sp" 'BEGIN { exit !(s > 1.2) }'; then
		echo "ok    $2: speedup $sp"
	else
		echo "FAIL  $2: speedup $sp, expected > 1.2"
		fail=1
	fi
}
honest c2c/gemm gemm_tiled
honest c2c/conv1d conv1d_outs8

# Nothing may outlive an evaluation.
left=$(pgrep -f "^$B/arena-runner|/arena-runner /proc/self/fd/5" 2>/dev/null |
	while read -r pid; do
		[ "$(cat /proc/"$pid"/status 2>/dev/null | sed -n 's/^PPid:\t//p')" = 1 ] && echo "$pid"
	done)
if [ -n "$left" ]; then
	echo "FAIL  orphaned runner processes: $left"
	fail=1
fi
exit $fail
