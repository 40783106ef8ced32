#!/bin/sh
# tests/gpu/adversarial.sh - adversarial GPU candidates through `arena
# eval` on the private HIP task tests/gpu/adversarial/task/vecpoly_hip: the
# honest ones must be accepted, every cheat rejected with its stated
# reason.  Needs a GPU (ARENA_DEVICE, default cuda:0).  Writes
# $OUT/adversarial.txt; exit 0 when every verdict is as expected.
. "$(dirname "$0")/lib.sh"
TABLE=$OUT/adversarial.txt
: > "$TABLE"
here=$ROOT/tests/gpu/adversarial
fail=0
say "adversarial GPU candidates on $DEVICE ($(date -u +%FT%TZ))"
say "candidate | expected | got | seconds | reason (first 200 characters)"

# check CANDIDATE STATUS PHRASE [eval options...]
check() {
	cand=$1 want=$2 phrase=$3
	shift 3
	t0=$(now)
	out=$("$ARENA" --store "$STORE" --tasks-dir "$here" eval task/vecpoly_hip \
		--workspace "$here/candidates/$cand" --no-cache "$@" 2>&1)
	t=$(elapsed "$t0")
	status=$(printf '%s\n' "$out" | field status)
	why=$(printf '%s\n' "$out" | grep -E "^(compilation_error_message|correctness_error_message|speedup_calculation_error_message): [^n]" |
		head -n 1 | cut -c1-200)
	sp=$(printf '%s\n' "$out" | field speedup_ratio)
	if [ "$status" = "$want" ] && printf '%s\n' "$out" | grep -qE -- "$phrase"; then
		[ "$status" = ok ] && why="speedup $sp"
		say "$cand | $want | as expected | $t | ${why:-"-"}"
	else
		say "$cand | $want \"$phrase\" | FAIL: got '$status' | $t | ${why:-"-"}"
		printf '%s\n' "$out" | sed 's/^/      /' | head -80 >> "$OUT/adversarial-failures.txt"
		fail=1
	fi
}

check baseline_copy ok "candidate_accepted: true" --held-out
check optimized ok "candidate_accepted: true" --quick
check forked_streams ok "candidate_accepted: true" --quick
check no_write incorrect "never written"
check partial_write incorrect "never written"
check reuse_buffer incorrect "correctness trial 2"
check cache_pointer incorrect "correctness trial 2"
check modify_input rejected "was modified by the kernel"
check other_stream rejected "work still running after the stream|work not ordered on the stream|work left running on the device|inconsistent with the controller" --quick
# Unordered with the given stream: the ordering check sees its output
# change while the runner holds that stream.
check other_stream_naive rejected "work not ordered on the stream" --quick
check work_after_return rejected "work left running on the device" --quick
check thread_worker rejected "work left running after arena_launch returned"
check shape_specialized incorrect "held-out case" --held-out
check illegal_address runtime_error "illegal memory access"

left=$(pgrep -f "arena-runner-(cuda|hip) /proc/self/fd/5" 2>/dev/null |
	while read -r pid; do
		[ "$(sed -n 's/^PPid:\t//p' /proc/"$pid"/status 2>/dev/null)" = 1 ] && echo "$pid"
	done)
if [ -n "$left" ]; then
	say "FAIL: orphaned GPU runner processes: $left"
	fail=1
fi
say "adversarial: $([ $fail = 0 ] && echo PASS || echo FAIL)"
exit $fail
