# Device locks are the machine's, not a store's (DESIGN.md section 3,
# item 7; issue 10): two `arena eval`s of one host task with different
# --store directories never time at once.  Evaluation A is stopped (its
# controller, SIGSTOP) right after it took the device lock for its timing;
# evaluation B, in another store, must then block in flock() on the same
# lock file (seen in /proc/locks) and take no device lock until A is let
# go; afterwards the two exclusive holds, read from both timing.tsv files
# on the machine's monotonic clock, must not overlap, and B's timing must
# lie inside its own.  With locks under <store>/locks (as before
# 512d88a), B takes its lock while A is stopped and the test fails.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/locks_lib.sh"

ws=$T/ws
cp -R "$ROOT/tasks/c2c/saxpy" "$ws"

eval_bg A "$T/store-a" c2c/saxpy --workspace "$ws" --no-cache --quick --seed 1
apid=$last_pid
hold_and_probe A B "device lock taken exclusively" "done" "$LOCKS/host.lock" \
	'eval_bg B "$T/store-b" c2c/saxpy --workspace "$ws" --no-cache --quick --seed 2; bpid=$last_pid'
rc=$?
# Caught after A had finished: a machine so slow that the polling missed
# a timing phase of seconds; say so rather than pass.
[ $rc -eq 0 ] || fail "could not stop A inside its timing phase"
wait "$apid" || fail "evaluation A failed: $(tail -n 5 "$T/A.out")"
wait "$bpid" || fail "evaluation B failed: $(tail -n 5 "$T/B.out")"
note "A: $(grep -m1 '^status' "$T/A.out"), B: $(grep -m1 '^status' "$T/B.out")"
exclusive_windows_disjoint A B
within_exclusive A "timing"
within_exclusive B "timing"
within_exclusive B "case .* timed"
[ -e "$T/store-a/locks" ] || [ -e "$T/store-b/locks" ] &&
	fail "a store has its own lock directory"
echo "ok"
