# tests/e2e/locks_lib.sh - helpers for the device lock tests
# (tests/e2e/device_lock_*.sh; sourced after lib.sh).
#
# They watch evaluations from outside while they run: each evaluation
# NAME is `arena eval ... --logs $T/NAME`, whose timing.tsv starts with
# "# t0 <ns> CLOCK_MONOTONIC" and carries one flushed comment line per
# mark ("# 812.3 ms: device lock taken exclusively after waiting 0.0 ms",
# engine/src/eval/runners.c), so that the marks of two processes can be
# put on one clock; and who waits for a lock file is read from
# /proc/locks, the kernel's own account, not from anything arena says.
# The lock directory is private to the test ($ARENA_LOCK_DIR), so that
# holding the device here never stalls another test or another user.

LOCKS=$T/locks
export ARENA_LOCK_DIR="$LOCKS"
# A failing test leaves no evaluation behind, stopped or running.
apid= bpid=
locks_cleanup() {
	for _p in $apid $bpid; do
		kill -CONT "$_p" 2>/dev/null
		kill "$_p" 2>/dev/null
	done
	rm -rf "$T"
}
trap locks_cleanup EXIT

# fake_gpu_device: one emulated device (engine/runner/gpu/gpu_rt_fake.h)
# for every evaluation of the test, as one GPU would be: the fake GPU
# runner and nvcc, ARENA_DEVICE=cuda:0, removed at exit.  Skips (77)
# when the fake runner is not built.  Sets $fake (tests/gpu/fake).
fake_gpu_device() {
	FAKE=$ROOT/$B/tests/arena-runner-fakegpu
	[ -x "$FAKE" ] || { echo "skip: $FAKE is not built"; exit 77; }
	fake=$ROOT/tests/gpu/fake
	dev=$(mktemp -d /dev/shm/arena-fake-gpu-XXXXXX) || fail "no /dev/shm"
	trap 'locks_cleanup; rm -rf "$dev"' EXIT
	export ARENA_FAKE_GPU_DIR=$dev ARENA_RUNNER_CUDA=$FAKE NVCC=$fake/nvcc
	export ARENA_DEVICE=cuda:0
}

# eval_bg NAME STORE ARGS...: `arena --store STORE eval ARGS --logs
# $T/NAME` in the background; its pid is in $last_pid, its output in
# $T/NAME.out.
eval_bg() {
	_n=$1 _s=$2
	shift 2
	"$ARENA" --store "$_s" eval "$@" --logs "$T/$_n" >"$T/$_n.out" 2>&1 &
	last_pid=$!
}

# has_mark NAME REGEX: NAME's trace has a mark matching REGEX (the text
# after "ms: ", anchored at its start).
has_mark() {
	grep -Eq "^# [0-9.]+ ms: $2" "$T/$1/timing.tsv" 2>/dev/null
}

# mark_ms NAME REGEX first|last: the machine's monotonic clock, in ms, at
# NAME's first or last mark matching REGEX; nothing when there is none.
mark_ms() {
	awk -v pat="^$2" -v which="$3" '
		/^# t0 [0-9]+ ns/ { t0 = $3 / 1e6; next }
		/^# [0-9.]+ ms: / {
			text = $0
			sub(/^# [0-9.]+ ms: /, "", text)
			if (text !~ pat || (which == "first" && found))
				next
			found = 1
			at = t0 + $2
		}
		END { if (found) printf "%.3f\n", at }' "$T/$1/timing.tsv" 2>/dev/null
}

# wait_mark NAME REGEX PID SECONDS: waits until NAME shows the mark;
# 1 when PID ended first or the time ran out.
wait_mark() {
	_end=$(($(date +%s) + $4))
	while ! has_mark "$1" "$2"; do
		kill -0 "$3" 2>/dev/null || { has_mark "$1" "$2"; return; }
		[ "$(date +%s)" -lt "$_end" ] || return 1
		sleep 0.05
	done
}

# lock_waiters GLOB: how many takers are blocked on the lock files GLOB
# names right now (the "->" lines of /proc/locks on their inodes: the
# device lock's waits are OFD locks, arena/fairlock.h).
lock_waiters() {
	_inos=
	for _f in $1; do
		[ -e "$_f" ] && _inos="$_inos $(stat -c %i "$_f")"
	done
	[ -n "$_inos" ] || { echo 0; return; }
	awk -v inos="$_inos" 'BEGIN { split(inos, v, " "); for (i in v) w[v[i]] = 1 }
		$2 == "->" { n_ = split($7, f, ":"); if (f[n_] in w) c++ }
		END { print c + 0 }' /proc/locks
}

# hold_and_probe A B STOP_MARK END_MARK LOCKGLOB START_B: starts nothing
# itself.  With evaluation A running (pid $apid), waits for A's
# STOP_MARK, stops A's controller there (holding the device lock) and
# checks that A had not yet reached END_MARK (else returns 2: caught too
# late, the caller may try again).  Then runs START_B (a command that
# starts evaluation B and sets $bpid) and waits until B either blocks
# on a file LOCKGLOB names (returns 0) or shows any "device lock taken"
# mark or ends while A is stopped (fails the test).  A is continued in
# every case.
hold_and_probe() {
	_a=$1 _b=$2 _stop=$3 _endm=$4 _lf=$5 _start=$6
	wait_mark "$_a" "$_stop" "$apid" 300 ||
		fail "$_a never reached '$_stop': $(tail -n 5 "$T/$_a.out")"
	kill -STOP "$apid"
	if has_mark "$_a" "$_endm"; then
		kill -CONT "$apid"
		wait "$apid"
		return 2
	fi
	eval "$_start"
	_end=$(($(date +%s) + 300))
	while :; do
		if has_mark "$_b" "device lock taken"; then
			kill -CONT "$apid"
			fail "$_b took the device lock while $_a held it ($_a stopped after '$_stop'): $(grep -E '^# [0-9.]+ ms: (device lock|runners ready|timing|case .* (checked|timed))' "$T/$_b/timing.tsv" | head -n 6)"
		fi
		if [ "$(lock_waiters "$_lf")" -gt 0 ]; then
			# B's marks are flushed before it blocks: look again.
			has_mark "$_b" "device lock taken" && continue
			break
		fi
		if ! kill -0 "$bpid" 2>/dev/null; then
			kill -CONT "$apid"
			fail "$_b ended while $_a held the device: $(tail -n 8 "$T/$_b.out")"
		fi
		if [ "$(date +%s)" -ge "$_end" ]; then
			kill -CONT "$apid"
			fail "$_b neither waited for the device lock nor took it in 300 s"
		fi
		sleep 0.05
	done
	note "$_b blocked on $(cd "$(dirname "$_lf")" && echo $(basename "$_lf")) while $_a held it"
	has_mark "$_b" "waiting for the device lock" ||
		fail "$_b waited without saying so in its timing.tsv"
	kill -CONT "$apid"
	return 0
}

# exclusive_holds NAME: NAME's exclusive holds of the device, one
# "START END" line each (ms on the machine's monotonic clock): from a
# "device lock taken exclusively" mark to the next "device lock released"
# (an evaluation lets the device go while its correctness trials' host
# references compute, and takes it again: several holds).
exclusive_holds() {
	awk '
		/^# t0 [0-9]+ ns/ { t0 = $3 / 1e6; next }
		/^# [0-9.]+ ms: / {
			text = $0
			sub(/^# [0-9.]+ ms: /, "", text)
			if (text ~ /^device lock taken exclusively/ && !open_) {
				open_ = 1; from = t0 + $2
			} else if (text ~ /^device lock released/ && open_) {
				open_ = 0; printf "%.3f %.3f\n", from, t0 + $2
			}
		}
		END { if (open_) printf "%.3f -\n", from }' "$T/$1/timing.tsv" 2>/dev/null
}

# exclusive_windows_disjoint A B: no exclusive hold of A's overlaps one of
# B's by more than the marks' resolution (0.1 ms; each hold closed), and
# B's first began after A's first; prints them.
exclusive_windows_disjoint() {
	exclusive_holds "$1" >"$T/holds.$1"
	exclusive_holds "$2" >"$T/holds.$2"
	[ -s "$T/holds.$1" ] && [ -s "$T/holds.$2" ] ||
		fail "missing lock marks: $1 [$(tr '\n' ' ' <"$T/holds.$1")], $2 [$(tr '\n' ' ' <"$T/holds.$2")]"
	! grep -q ' -$' "$T/holds.$1" "$T/holds.$2" ||
		fail "an exclusive hold never released: $1 [$(tr '\n' ' ' <"$T/holds.$1")], $2 [$(tr '\n' ' ' <"$T/holds.$2")]"
	awk 'FNR == NR { a0[++na] = $1; a1[na] = $2; next }
		{ for (i = 1; i <= na; i++)
			if (($2 < a1[i] ? $2 : a1[i]) - ($1 > a0[i] ? $1 : a0[i]) > 0.1) {
				printf "A [%s, %s] and B [%s, %s]\n", a0[i], a1[i], $1, $2
				bad = 1
			} }
		END { exit bad }' "$T/holds.$1" "$T/holds.$2" >"$T/overlap" ||
		fail "exclusive holds overlap ($1 then $2): $(cat "$T/overlap")"
	awk 'FNR == 1 { f[++n] = $1 } END { exit !(f[2] >= f[1]) }' \
		"$T/holds.$1" "$T/holds.$2" ||
		fail "$2 held the device before $1"
	note "exclusive holds: $1 $(wc -l <"$T/holds.$1") [$(head -n 1 "$T/holds.$1") .. $(tail -n 1 "$T/holds.$1")], $2 $(wc -l <"$T/holds.$2") [$(head -n 1 "$T/holds.$2") .. $(tail -n 1 "$T/holds.$2")] ms (monotonic clock)"
}

# within_exclusive NAME REGEX: every mark of NAME matching REGEX lies in
# one of NAME's exclusive holds of the device (to the marks' 0.1 ms).
within_exclusive() {
	exclusive_holds "$1" >"$T/holds.$1"
	has_mark "$1" "$2" || fail "$1 has no mark '$2'"
	awk -v pat="^$2" '
		FNR == NR { h0[++n] = $1; h1[n] = $2; next }
		/^# t0 [0-9]+ ns/ { t0 = $3 / 1e6; next }
		/^# [0-9.]+ ms: / {
			text = $0
			sub(/^# [0-9.]+ ms: /, "", text)
			if (text !~ pat)
				next
			at = t0 + $2; in_ = 0
			for (i = 1; i <= n; i++)
				if (at >= h0[i] - 0.1 && at <= h1[i] + 0.1)
					in_ = 1
			if (!in_) { printf "%.3f ms: %s\n", at, text; bad = 1 }
		}
		END { exit bad }' "$T/holds.$1" "$T/$1/timing.tsv" >"$T/outside" ||
		fail "$1: marks '$2' outside its exclusive holds: $(head -n 3 "$T/outside")"
}
