# Reliability: kill -9 of the daemon in the middle of a run leaves a stale
# mount (ENOTCONN) while the detached executor finishes the run; the next
# `arena mount` detaches the stale mount and shows every run, result and
# workspace intact.  SIGTERM and fusermount3 -u both end the daemon
# cleanly (exit 0, nothing left mounted).
. "$(dirname "$0")/fs_lib.sh"
mounted() { grep -q " $MNT fuse" /proc/mounts; }

fs_mount
cheap_config "$T/run.yaml"
sed -i 's/^agent: .*/agent: {template: command, command: [sleep, "2"], timeout_seconds: 60}/' "$T/run.yaml"
run=$(new_run "$T/run.yaml")
echo "marker" > "$MNT/runs/$run/tasks/c2c_dot/workspace/notes.txt" || fail "write"
wait_executor_running "$run"

kill -9 "$FS_PID"
wait "$FS_PID" 2>/dev/null
FS_PID=
expect_err "Transport endpoint is not connected" ls "$MNT"
# The run goes on without the daemon.
for _ in $(seq 600); do
	"$ARENA" --store "$STORE" status "$run" | grep -q "$run done" && break
	sleep 0.2
done
"$ARENA" --store "$STORE" status "$run" | grep -q "$run done" ||
	fail "the run did not finish while the daemon was down: $("$ARENA" --store "$STORE" status "$run")"

fs_mount
grep -q "stale mount" "$T/mount.log" || fail "the stale mount was not reported: $(cat "$T/mount.log")"
[ "$(readlink "$MNT/runs/latest")" = "$run" ] || fail "runs/latest after remount"
grep -q '^status: done$' "$MNT/runs/$run/status" || fail "status after remount"
[ "$(cat "$MNT/runs/$run/tasks/c2c_dot/workspace/notes.txt")" = marker ] || fail "workspace lost"
grep -q ' eval_end ' "$MNT/runs/$run/events" || fail "events lost"
grep -q '^c2c/dot,' "$MNT/runs/$run/summary.csv" || fail "summary lost"
n=$(grep -c ' eval_start ' "$MNT/runs/$run/events")
grep -Eq '^[0-9]+\.[0-9]{4}$' "$MNT/runs/$run/tasks/c2c_dot/score" || fail "score after remount"
[ "$(grep -c ' eval_start ' "$MNT/runs/$run/events")" = "$n" ] || fail "the stored result was not reused"

# SIGTERM: clean exit, nothing mounted
kill -TERM "$FS_PID"
wait "$FS_PID"
rc=$?
FS_PID=
[ $rc = 0 ] || fail "SIGTERM: exit status $rc"
mounted && fail "still mounted after SIGTERM"

# fusermount3 -u: clean exit
fs_mount
pid=$FS_PID
fusermount3 -u "$MNT" || fail "fusermount3 -u"
wait "$pid"
rc=$?
FS_PID=
[ $rc = 0 ] || fail "unmount: exit status $rc"
mounted && fail "still mounted after fusermount3 -u"
grep -q "stopping (unmounted)" "$T/mount.log" || fail "no clean stop logged: $(tail -n 3 "$T/mount.log")"
wait_executors 30
echo ok
