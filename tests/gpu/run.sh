#!/bin/sh
# tests/gpu/run.sh - the GPU checks (issue 4.7), on a machine with a GPU.
# Anyone can rerun them; each step writes a table under $OUT:
#   doctor       `arena doctor` (devices, compilers, peaks, the runner's
#                sandbox with this driver)              -> doctor.txt
#   adversarial  honest and cheating HIP candidates     -> adversarial.txt
#   confine      the evaluator's confinement with this driver: an honest
#                candidate confined, a secrets probe finding nothing
#                                                       -> confine.txt
#   reeval       seconds to re-evaluate an edited small HIP task -> reeval.txt
#   baselines    every GPU task's baseline against its reference, with
#                held-out cases (also an A/A)           -> baselines.txt/.csv
#   noop         `arena run` with the noop agent over the GPU suite (A/A)
#                                                       -> noop.txt, noop-summary.csv
#   check_tasks  `arena check-tasks` on every GPU task (not a default
#                step: one family per call)             -> check_tasks.md
# usage: tests/gpu/run.sh [STEP...] [-- SELECTOR...]
#   default steps: doctor adversarial confine reeval baselines noop; selectors
#   (tasks for baselines and noop) default to each script's own.
# Environment: B (build dir, default build), OUT (default $B/gpu-results),
# STORE (default /tmp/arena-gpu-store), ARENA_DEVICE (default cuda:0),
# ARENA_COMMIT (the commit to record, when the tree's .git is not it).
# Exit 0 when every step passed.  `make test-gpu` runs all steps.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"
steps=
while [ $# -gt 0 ] && [ "$1" != -- ]; do steps="$steps $1"; shift; done
[ "${1:-}" = -- ] && shift
[ -n "$steps" ] || steps="doctor adversarial confine reeval baselines noop"
summary=$OUT/summary.txt
# A copy of the tree sent to another machine may carry a stale .git:
# ARENA_COMMIT, when set, names the commit instead.
echo "tests/gpu/run.sh on $(uname -n) at $(date -u +%FT%TZ), commit ${ARENA_COMMIT:-$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null)}" >> "$summary"
fail=0
for s in $steps; do
	t0=$(now)
	case $s in
	doctor)
		"$ARENA" --store "$STORE" doctor > "$OUT/doctor.txt" 2>&1
		rc=$? ;;
	adversarial|confine|reeval|baselines|noop|check_tasks)
		case $s in adversarial|confine|reeval) sh "$here/$s.sh" ;; *) sh "$here/$s.sh" "$@" ;; esac
		rc=$? ;;
	*)
		echo "run.sh: unknown step '$s'" >&2
		rc=2 ;;
	esac
	line="$s: $([ $rc = 0 ] && echo PASS || echo "FAIL (exit $rc)") in $(elapsed "$t0") s"
	echo "$line" | tee -a "$summary"
	[ $rc = 0 ] || fail=1
done
exit $fail
