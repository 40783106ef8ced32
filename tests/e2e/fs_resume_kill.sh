# Resume is reliable after kill -9.  The daemon runs under a parent that
# adopts orphans and never reaps them (PR_SET_CHILD_SUBREAPER), so the
# killed executor stays a zombie, as under an init that reaps late: it
# still answers kill(pid, 0) and its lease is still in the store.  Then
# kill -9 of the daemon and of the executor, a new mount, and an immediate
# `echo resume > control` must start an executor that runs the run to the
# end (or fail with an error), never succeed and start nothing.  The same
# holds with the daemon alive and only the executor killed, and when the
# killed executor's lock outlives it for a moment (its last thread still
# exiting: here a process holding the run's lock for 1.5 s, no lease).
. "$(dirname "$0")/fs_lib.sh"

# Mounts through the non-reaping parent; FS_PID is that parent.
reaperless_mount() {
	python3 - "$ARENA" "$STORE" "$MNT" "$T/mount.log" <<'PY' &
import ctypes, os, subprocess, sys, time
ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)  # PR_SET_CHILD_SUBREAPER
arena, store, mnt, log = sys.argv[1:]
subprocess.Popen([arena, "--store", store, "mount", mnt, "--foreground"],
                 stdout=open(log, "a"), stderr=subprocess.STDOUT)
while True:
    time.sleep(3600)    # never waits for anyone: orphans stay zombies
PY
	FS_PID=$!
	for _ in $(seq 100); do [ -e "$MNT/README" ] && return 0; sleep 0.05; done
	cat "$T/mount.log"; fail "the mount did not come up"
}
daemon_pid() { pgrep -f -- "--store $STORE mount $MNT --foreground" | head -n 1; }
executor_pid() { pgrep -f -- "--store $STORE .* resume $1\$" | head -n 1; }
is_zombie() { [ "$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null)" = Z ]; }
# resume_starts CASE RUN: `echo resume` succeeds and started something: a
# live executor of RUN, holding the run.
resume_starts() {
	echo resume > "$MNT/runs/$2/control" || { cat "$T/mount.log"; fail "$1: resume failed"; }
	new_ex=
	for p in $(pgrep -f -- "--store $STORE .* resume $2\$"); do
		is_zombie "$p" || new_ex=$p
	done
	[ -n "$new_ex" ] || fail "$1: resume returned success but no executor runs"
	grep -q '^executor: running' "$MNT/runs/$2/status" ||
		fail "$1: no executor holds the run: $(cat "$MNT/runs/$2/status")"
}

reaperless_mount
cheap_config "$T/run.yaml"
sed -i 's/^agent: .*/agent: {template: command, command: [sleep, "3"], timeout_seconds: 60}/' "$T/run.yaml"

for case in daemon_and_executor executor_only; do
	run=$(new_run "$T/run.yaml")
	wait_executor_running "$run"
	ex=$(executor_pid "$run")
	[ -n "$ex" ] || fail "no executor process for $run"
	if [ $case = daemon_and_executor ]; then
		d=$(daemon_pid)
		kill -9 "$d" "$ex"
		for _ in $(seq 50); do is_zombie "$ex" && break; sleep 0.02; done
		is_zombie "$ex" || fail "the killed executor is not a zombie; the test would prove nothing"
		for _ in $(seq 50); do is_zombie "$d" && break; sleep 0.02; done
		"$ARENA" --store "$STORE" mount "$MNT" --foreground >> "$T/mount.log" 2>&1 &
		for _ in $(seq 100); do [ -e "$MNT/README" ] && break; sleep 0.05; done
	else
		kill -9 "$ex"
		for _ in $(seq 50); do is_zombie "$ex" && break; sleep 0.02; done
		is_zombie "$ex" || fail "the killed executor is not a zombie"
	fi
	resume_starts "$case" "$run"
	wait_status "$run" done 120
	note "$case: resume after kill -9 ran $run to the end"
done
# A dying holder: the executor is killed, and the run's lock stays taken
# for 1.5 s more (as a killed process whose last thread is still in an
# uninterruptible wait keeps it).  `resume` must wait for it and start an
# executor, not see the lock, return 0 and start nothing.
run=$(new_run "$T/run.yaml")
wait_executor_running "$run"
ex=$(executor_pid "$run")
[ -n "$ex" ] || fail "no executor process for $run"
kill -9 "$ex"
python3 - "$STORE/runs/$run/.lock" "$T/held" <<'PY' &
import fcntl, os, struct, sys, time
fd = os.open(sys.argv[1], os.O_RDWR)
# struct flock: l_type, l_whence, (pad), l_start, l_len, l_pid, (pad)
fcntl.fcntl(fd, fcntl.F_OFD_SETLKW, struct.pack("hh4xqqi4x", fcntl.F_WRLCK, 0, 0, 0, 0))
open(sys.argv[2], "w").close()
time.sleep(1.5)
PY
holder=$!
for _ in $(seq 250); do [ -e "$T/held" ] && break; sleep 0.02; done
[ -e "$T/held" ] || fail "dying_holder: the stand-in never took the run's lock"
resume_starts dying_holder "$run"
wait "$holder"
wait_status "$run" done 120
note "dying_holder: resume waited for the lock and ran $run to the end"

fusermount3 -u "$MNT"
for p in $(daemon_pid); do kill "$p" 2>/dev/null; done
kill "$FS_PID" 2>/dev/null
FS_PID=
wait_executors 30
echo ok
