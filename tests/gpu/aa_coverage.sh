#!/bin/sh
# tests/gpu/aa_coverage.sh - issue 10 item 9 on a GPU: how many A/A
# intervals contain 1.0 (tests/bench/aa_coverage.sh over the GPU suite,
# `arena eval TASK --aa`: every task's baseline timed against itself on
# the full timing path, --timing-only: no correctness trials and no
# reference checks, which only cost device time here).  About 95% should;
# the issue asks for at least 60 task-level intervals on the H200.
# usage: aa_coverage.sh [-n REPEATS] [SELECTOR...]
#        (default: 3 repeats of hip2hip cuda2cuda; instruction2hip tasks
#        are skipped: their baseline is a separate file, which --aa uses,
#        but they add nothing the others do not)
# Writes $OUT/aa-<selectors>.tsv (every task- and case-level interval)
# and $OUT/aa-<selectors>.txt (the lines and the coverage summary), so
# that a suite split over several invocations (each under a time limit)
# adds up: tests/bench/aa_coverage.sh --summary $OUT/aa-*.tsv.
. "$(dirname "$0")/lib.sh"
n=3
if [ "${1:-}" = -n ]; then
	n=$2
	shift 2
fi
[ $# -gt 0 ] || set -- hip2hip cuda2cuda
name=aa-$(echo "$*" | tr ' /' '_-')
B="$B" ARENA="$ARENA" sh "$ROOT/tests/bench/aa_coverage.sh" -n "$n" \
	--timing-only -o "$OUT/$name.tsv" "$@" 2>&1 | tee "$OUT/$name.txt"
