# Concurrency: 50 concurrent `cp` to runs/new give 50 runs (each with its
# own detached executor, cancelled right away); 8 concurrent `cat score` on
# an unevaluated workspace give exactly one evaluation and one answer,
# while other paths stay responsive; an interrupted reader leaves no
# evaluation behind (none runs, none is cached); a non-blocking open of an
# unevaluated score fails with EAGAIN.  No agent of a cancelled run
# outlives its executor.
. "$(dirname "$0")/fs_lib.sh"
fs_mount

# 50 writers at once
sleep_config "$T/sleep.yaml" 5
i=0 pids=
while [ $i -lt 50 ]; do
	cp "$T/sleep.yaml" "$MNT/runs/new" 2> "$T/cp.$i.err" &
	pids="$pids $!"
	i=$((i + 1))
done
wait $pids	# (a bare wait would wait for the daemon too)
cat "$T"/cp.*.err | grep . && fail "a concurrent cp failed"
n=$(ls "$MNT/runs" | grep -c '^run_')
[ "$n" = 50 ] || fail "50 writers gave $n runs"
[ "$(ls "$STORE/runs" | sort -u | wc -l)" = 50 ] || fail "run ids are not unique"
for r in $(ls "$MNT/runs" | grep '^run_'); do
	wait_executor_running "$r"
	echo cancel > "$MNT/runs/$r/control" || fail "cancel $r"
done
wait_executors 90
# (an agent works in its workspace through the mount: none may outlive
# its executor)
h=$(mount_holders)
[ -z "$h" ] || fail "processes outlived their cancelled runs: $h"
for r in $(ls "$MNT/runs" | grep '^run_'); do
	grep -q '^status: cancelled$' "$MNT/runs/$r/status" ||
		fail "$r: $(head -n 3 "$MNT/runs/$r/status")"
done
note "50 runs created, executed and cancelled"

# 8 readers of one unevaluated workspace share one evaluation (the daemon
# logs one line per evaluation it starts)
evals() { grep -c ': evaluation started' "$T/mount.log"; }
run=$(ls "$MNT/runs" | grep '^run_' | head -n 1)
S="$MNT/runs/$run/tasks/c2c_dot/score"
n0=$(evals)
i=0 pids=
while [ $i -lt 8 ]; do
	cat "$S" > "$T/score.$i" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
sleep 0.3
start=$(date +%s%N)
ls "$MNT/runs" > /dev/null && cat "$MNT/runs/$run/status" > /dev/null &&
	cat "$MNT/runs/$run/config.yaml" > /dev/null || fail "other paths failed"
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ "$ms" -lt 1000 ] || fail "other paths took $ms ms during an evaluation"
wait $pids
[ "$(cat "$T"/score.* | sort -u | wc -l)" = 1 ] || fail "readers disagree: $(cat "$T"/score.*)"
grep -Eq '^[0-9]+\.[0-9]{4}$' "$T/score.0" || fail "score: $(cat "$T/score.0")"
[ "$(evals)" = $((n0 + 1)) ] ||
	fail "8 readers caused $(( $(evals) - n0 )) evaluations"
note "8 readers, one evaluation, other paths answered in $ms ms"

# An interrupted reader stops its evaluation.
W="$MNT/runs/$run/tasks/c2c_dot/workspace"
echo '/* edit 1 */' >> "$W/kernel.c"
cat "$S" > /dev/null 2>&1 &
reader=$!
for _ in $(seq 50); do
	pgrep -f -- "--store $STORE .*--eval-worker" > /dev/null && break
	sleep 0.05
done
pgrep -f -- "--store $STORE .*--eval-worker" > /dev/null || fail "no evaluation started"
kill -TERM "$reader"
wait "$reader" 2>/dev/null
for _ in $(seq 40); do
	pgrep -f -- "--store $STORE .*--eval-worker" > /dev/null || break
	sleep 0.05
done
pgrep -f -- "--store $STORE .*--eval-worker" > /dev/null && fail "the evaluation outlived its reader"
sleep 1
grep -q 'evaluation stopped: no reader waits for it' "$T/mount.log" ||
	fail "the log does not say why the evaluation stopped: $(tail -n 2 "$T/mount.log")"

# O_NONBLOCK on an unevaluated score: EAGAIN, no evaluation (EAGAIN also
# says that the abandoned evaluation left no result in the cache)
python3 - "$S" <<'PY' || fail "O_NONBLOCK open of an unevaluated score (or the abandoned evaluation finished anyway)"
import errno, os, sys
try:
    os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
    sys.exit("opened")
except OSError as e:
    sys.exit(0 if e.errno == errno.EAGAIN else "errno %d" % e.errno)
PY
pgrep -f -- "--store $STORE .*--eval-worker" > /dev/null && fail "O_NONBLOCK started an evaluation"
# and a patient reader still gets its answer
grep -Eq '^[0-9]+\.[0-9]{4}$' "$S" || fail "score after the interruption"

fs_umount
echo ok
