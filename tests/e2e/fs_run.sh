# A run launched with `cp config runs/new` executes to the end through a
# detached executor: `cat runs/new` prints its id, `tail -f events` follows
# it, status reaches done, summary.csv has a correct row, score and
# task_result.yaml answer from the stored result at once, poll() on events
# wakes on a new event, the same descriptor can read its run id back, and
# compare/A/B/report.txt pairs two runs.
. "$(dirname "$0")/fs_lib.sh"
fs_mount

cheap_config "$T/cheap.yaml"
cp "$T/cheap.yaml" "$MNT/runs/new" || fail "cp failed"
run=$(cat "$MNT/runs/new")
[ "$(readlink "$MNT/runs/latest")" = "$run" ] || fail "runs/latest is not $run"
# tail -f sees events appended after it started
timeout 60 tail -n +1 -f "$MNT/runs/$run/events" > "$T/tail.out" 2>&1 &
tail_pid=$!
wait_status "$run" done 120
for _ in $(seq 30); do grep -q ' done ' "$T/tail.out" && break; sleep 0.2; done
kill "$tail_pid" 2>/dev/null
grep -q ' eval_end ' "$T/tail.out" || fail "tail -f missed events: $(cat "$T/tail.out")"
grep -q ' done ' "$T/tail.out" || fail "tail -f did not see the run finish"
[ -s "$STORE/runs/$run/logs/executor.log" ] || fail "no executor log"

grep -q "^progress: 1/1 done" "$MNT/runs/$run/status" || fail "status: $(cat "$MNT/runs/$run/status")"
# (whether the evaluator calls it correct is its business, not the mount's)
[ "$(csv_field "$MNT/runs/$run/summary.csv" c2c/dot 7)" = true ] ||
	fail "dot not compiled: $(cat "$MNT/runs/$run/summary.csv")"
score=$(cat "$MNT/runs/$run/tasks/c2c_dot/score")
echo "$score" | grep -Eq '^[0-9]+\.[0-9]{4}$' || fail "score is '$score'"
yscore=$(awk '/^score:/ { print $2 }' "$MNT/runs/$run/tasks/c2c_dot/task_result.yaml")
awk -v a="$score" -v b="$yscore" 'BEGIN { exit !(a - b < 1e-4 && b - a < 1e-4) }' ||
	fail "task_result.yaml says score '$yscore', score says $score"
# unchanged sources: answered from the store, no evaluation
n=$(grep -c ' eval_start ' "$MNT/runs/$run/events")
start=$(date +%s%N)
for _ in $(seq 20); do cat "$MNT/runs/$run/tasks/c2c_dot/score" > /dev/null; done
ms=$(( ($(date +%s%N) - start) / 20000000 ))
[ "$(grep -c ' eval_start ' "$MNT/runs/$run/events")" = "$n" ] || fail "unchanged sources were evaluated"
[ "$ms" -lt 200 ] || fail "cat score on unchanged sources took $ms ms"
note "cat score (unchanged): about $ms ms including the cat process"
# Each step below is bounded, so that a request the mount never answers
# names its step (CI once timed this script out after the line above,
# 2026-12-07, and did not say where).
timeout 60 grep -q 'c2c/dot' "$MNT/runs/$run/report.html" ||
	fail "report.html lacks the task (or was not read in 60 s)"

# poll: nothing new -> not readable; a new event -> readable
timeout 60 python3 - "$MNT/runs/$run/events" "$MNT/runs/$run/control" <<'PY' || fail "poll on events (exit $?)"
import os, select, sys, threading, time
fd = os.open(sys.argv[1], os.O_RDONLY)
while os.read(fd, 65536):
    pass
p = select.poll()
p.register(fd, select.POLLIN)
if p.poll(300):
    sys.exit("events readable with nothing new")
def later():
    time.sleep(0.5)
    with open(sys.argv[2], "w") as f:
        f.write("cancel\n")	# a finished run: records an event only
threading.Thread(target=later, daemon=True).start()
if not p.poll(5000):
    sys.exit("poll did not wake on a new event")
if b"cancel" not in os.read(fd, 65536):
    sys.exit("the new event was not readable")
PY

# The writing descriptor reads its own run id back (Plan 9 clone style).
timeout 60 python3 - "$MNT/runs/new" "$T/cheap.yaml" > "$T/id" <<'PY' || fail "read-back on the same descriptor (exit $?)"
import sys
with open(sys.argv[1], "r+") as f:
    f.write(open(sys.argv[2]).read())
    f.flush()
    f.seek(0)
    print(f.read().strip())
PY
run2=$(cat "$T/id")
[ -d "$STORE/runs/$run2" ] && [ "$run2" != "$run" ] || fail "read back '$run2'"
wait_status "$run2" done 120

rep=$T/compare.txt
timeout 60 cat "$MNT/compare/$run/$run2/report.txt" > "$rep" ||
	fail "compare/$run/$run2/report.txt not read in 60 s (exit $?)"
grep -q "^comparable: yes" "$rep" || fail "two runs of one config are not comparable: $(cat "$rep")"
# A ratio with its interval when dot is correct in both runs, else "n/a".
grep -Eq '^geomean speedup ratio B/A: ([0-9.]+ \[[0-9.]+, [0-9.]+\]|n/a)' "$rep" ||
	fail "no ratio: $(cat "$rep")"
grep -q "^B vs A: [0-9]* win(s), [0-9]* tie(s), [0-9]* loss(es)" "$rep" || fail "no tally"
grep -Eq '^c2c/dot .* (win|tie|loss)$' "$rep" || fail "no verdict for c2c/dot: $(cat "$rep")"
wait_executors 30
fs_umount
echo ok
