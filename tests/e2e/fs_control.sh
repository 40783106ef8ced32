# runs/<run>/control: `resume` while an executor runs normally starts no
# second one; `cancel` then `resume` at once ends with the run executing to
# the end (a waiter resumes it once the old executor has stopped); `resume`
# of a stopped run starts a detached executor.
. "$(dirname "$0")/fs_lib.sh"
fs_mount
# Executors of run $1: matching processes whose parent is not one (an
# agent's holder is a fork of the executor, pid 1 of the agent's PID
# namespace, with the executor's command line).
executors() {
	pids=$(pgrep -f -- "--store $STORE .*(resume|--resume-waiter) $1")
	n=0
	for p in $pids; do
		pp=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		case " $(echo $pids) " in *" $pp "*) ;; *) [ -n "$pp" ] && n=$((n + 1)) ;; esac
	done
	echo $n
}

cheap_config "$T/run.yaml"
sed -i 's/^agent: .*/agent: {template: command, command: [sleep, "2"], timeout_seconds: 60}/' "$T/run.yaml"
run=$(new_run "$T/run.yaml")
wait_executor_running "$run"
echo resume > "$MNT/runs/$run/control" || fail "resume of a running run"
[ "$(executors "$run")" = 1 ] || fail "resume started a second executor"

echo cancel > "$MNT/runs/$run/control" && echo resume > "$MNT/runs/$run/control" ||
	fail "cancel; resume"
wait_status "$run" done 120
grep -q ' cancelled ' "$MNT/runs/$run/events" || fail "the cancel did not happen first"
grep -q ' eval_end ' "$MNT/runs/$run/events" || fail "the resumed run did not evaluate"
grep -q 'waiting for the executor' "$STORE/runs/$run/logs/executor.log" ||
	fail "no waiter: $(cat "$STORE/runs/$run/logs/executor.log")"

# A stopped run: cancel it while its agent works (an agent that would
# run for 10 minutes, and a daemon it started), then resume it later.  The
# cancel stops the agent and everything it started at once; the attempt
# is not evaluated, and the resumed run launches the agent again on the
# same workspace (the mark it left is there: this time it ends).
cheap_config "$T/long.yaml"
sed -i 's|^agent: .*|agent: {template: command, command: [sh, -c, "[ -e started ] \&\& exit 0; touch started; setsid sleep 600 \& sleep 600"], timeout_seconds: 900}|' "$T/long.yaml"
run2=$(new_run "$T/long.yaml")
wait_executor_running "$run2"
for _ in $(seq 100); do
	[ -e "$MNT/runs/$run2/tasks/c2c_dot/workspace/started" ] && break
	sleep 0.1
done
t0=$(date +%s)
echo cancel > "$MNT/runs/$run2/control"
wait_status "$run2" cancelled 30
[ $(($(date +%s) - t0)) -le 15 ] || fail "the cancel took $(($(date +%s) - t0)) s"
grep -q ' agent_end .*its run was cancelled' "$MNT/runs/$run2/events" ||
	fail "no agent_end naming the cancel: $(cat "$MNT/runs/$run2/events")"
grep -q ' eval_start ' "$MNT/runs/$run2/events" &&
	fail "the cancelled attempt was evaluated"
pgrep -f "^sleep 600" >/dev/null && fail "the agent's processes outlived the cancel"
wait_executors 30
grep -q '^executor: not running' "$MNT/runs/$run2/status" || fail "executor still there"
echo resume > "$MNT/runs/$run2/control" || fail "resume of a stopped run"
wait_status "$run2" done 120
grep -q 'started again (previous launch interrupted)' "$MNT/runs/$run2/events" ||
	fail "the resumed run did not launch the agent again: $(cat "$MNT/runs/$run2/events")"
wait_executors 30
fs_umount
echo ok
