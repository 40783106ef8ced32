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

# A stopped run: cancel it before its agent ends, then resume it later.
run2=$(new_run "$T/run.yaml")
wait_executor_running "$run2"
echo cancel > "$MNT/runs/$run2/control"
wait_status "$run2" cancelled 60
wait_executors 30
grep -q '^executor: not running' "$MNT/runs/$run2/status" || fail "executor still there"
echo resume > "$MNT/runs/$run2/control" || fail "resume of a stopped run"
wait_status "$run2" done 120
wait_executors 30
fs_umount
echo ok
