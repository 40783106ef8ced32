# tests/e2e/fs_lib.sh - helpers for the tests of `arena mount` (sourced by
# tests/e2e/fs_*.sh).  Run on its own it is the smallest of them: mount a
# fresh store, see the root, unmount.
#
# Every test mounts a private store ($STORE) at $MNT under its own temp
# directory; the EXIT trap unmounts, stops the daemon, stops any executor
# or evaluation worker started for $STORE (by pid: they are found by their
# unique --store argument), and removes the directory.  Tests skip (77)
# only where /dev/fuse or fusermount3 is missing.
# (A script outside tests/e2e sets E2E_DIR to find lib.sh.)
. "${E2E_DIR:-$(dirname "$0")}/lib.sh"
case $B in /*) ARENA="$B/arena" ;; esac
if [ ! -e /dev/fuse ] || ! command -v fusermount3 >/dev/null; then
	echo "skip: /dev/fuse or fusermount3 is missing"
	exit 77
fi
MNT="$T/mnt"
mkdir -p "$MNT"
FS_PID=

# Pids of processes working for this store (executors, waiters, workers).
store_pids() {
	pgrep -f -- "--store $STORE " 2>/dev/null | while read -r p; do
		[ "$p" != "$FS_PID" ] && echo "$p"
	done
}

fs_cleanup() {
	fusermount3 -u -z "$MNT" 2>/dev/null
	[ -n "$FS_PID" ] && kill "$FS_PID" 2>/dev/null
	for p in $(store_pids); do kill -9 "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap fs_cleanup EXIT
trap 'exit 1' INT TERM

# Mounts $STORE at $MNT in the foreground (in the background of this
# shell), extra arguments passed on; waits until it answers.
fs_mount() {
	"$ARENA" --store "$STORE" mount "$MNT" --foreground "$@" \
		>>"$T/mount.log" 2>&1 &
	FS_PID=$!
	for _ in $(seq 100); do
		[ -e "$MNT/README" ] && return 0
		kill -0 "$FS_PID" 2>/dev/null || break
		sleep 0.05
	done
	cat "$T/mount.log"
	fail "the mount did not come up"
}

# Processes whose working directory, root or an open descriptor lies
# under $MNT, one line each: pid, command, what it holds.
mount_holders() {
	for p in /proc/[0-9]*; do
		for l in "$p/cwd" "$p/root" "$p"/fd/*; do
			t=$(readlink "$l" 2>/dev/null) || continue
			case $t in "$MNT"|"$MNT"/*)
				echo "${p#/proc/} $(tr '\0' ' ' < "$p/cmdline" 2>/dev/null |
					cut -c1-80): ${l#$p/} -> $t" ;;
			esac
		done
	done
}

# Unmounts $MNT and reaps the daemon.  A reference the test cannot see
# (a path walk of another process in flight) makes umount(2) answer
# EBUSY for a moment: the holders are logged and the unmount is tried
# again for up to 10 s; a mount still busy then fails the test.
fs_umount() {
	tries=0
	until fusermount3 -u "$MNT" 2>"$T/umount.err"; do
		tries=$((tries + 1))
		if [ $tries = 1 ]; then
			echo "-- unmount: $(cat "$T/umount.err"); holders:" >&2
			mount_holders >&2
		fi
		[ $tries -lt 50 ] || fail "fusermount3 -u failed: $(cat "$T/umount.err")"
		sleep 0.2
	done
	[ $tries = 0 ] || echo "-- unmounted after $tries busy tries" >&2
	wait "$FS_PID" 2>/dev/null
	FS_PID=
}

# Waits until no executor or waiter works for $STORE (at most $1 s).
wait_executors() {
	for _ in $(seq $((${1:-60} * 10))); do
		[ -z "$(pgrep -f -- "--store $STORE .*(resume|--resume-waiter)")" ] && return 0
		sleep 0.1
	done
	fail "executors still running after ${1:-60} s"
}

# Waits until an executor holds run $1 and has marked it running (a cancel
# written before that is overwritten when the executor starts).
wait_executor_running() {
	for _ in $(seq 200); do
		st=$(cat "$MNT/runs/$1/status")
		echo "$st" | grep -q '^executor: running' &&
			echo "$st" | grep -q '^status: running' && return 0
		sleep 0.05
	done
	fail "no executor started for $1: $(cat "$MNT/runs/$1/status")"
}

# A config whose agent sleeps $2 seconds (no evaluation happens when the
# run is cancelled meanwhile).  usage: sleep_config FILE SECONDS [TASKS]
sleep_config() {
	write_config "$1" "{template: command, command: [sleep, \"$2\"], timeout_seconds: 60}" \
		"${3:-[c2c/dot]}"
}

# A config that really runs and evaluates, cheaply.
cheap_config() {	# file [tasks]
	cat > "$1" <<CFG
agent: {template: noop}
tasks: ${2:-[c2c/dot]}
device: host
timing: {case_budget_s: 0.05, blocks: 1, min_pairs: 2, max_pairs: 4, correctness_trials: 3}
CFG
}

# Creates a run through the mount and prints its id.
new_run() {	# config
	cp "$1" "$MNT/runs/new" || fail "cp $1 runs/new failed"
	cat "$MNT/runs/new"
}

# Waits until runs/<run>/status says $2 (at most $3 s, default 120).
wait_status() {
	for _ in $(seq $((${3:-120} * 10))); do
		grep -q "^status: $2\$" "$MNT/runs/$1/status" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$MNT/runs/$1/status" "$MNT/runs/$1/events"
	fail "run $1 did not reach status $2"
}

# Expects a command to fail with a message containing $1 (strerror text).
expect_err() {	# substring command...
	want=$1; shift
	out=$("$@" 2>&1) && fail "'$*' succeeded; expected: $want"
	echo "$out" | grep -q -- "$want" || fail "'$*': expected '$want', got: $out"
}

if [ "$(basename "$0")" = fs_lib.sh ]; then
	fs_mount
	[ "$(ls "$MNT" | tr '\n' ' ')" = "README compare runs tasks " ] ||
		fail "root lists: $(ls "$MNT")"
	fs_umount
	grep -q "arena" /proc/mounts && grep -q " $MNT " /proc/mounts &&
		fail "still mounted"
	echo ok
fi
