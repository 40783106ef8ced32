# kill -9 of `arena run` at two moments (while an agent runs, and while an
# evaluation runs), then `arena resume`: the run completes, no finished task
# is redone, the interrupted agent is launched once more (and the result
# says so), and summary.csv has exactly one row per task.
. "$(dirname "$0")/lib.sh"

cat > "$T/agent.sh" <<AGENT
#!/bin/sh
echo "\$ARENA_TASK_ID" >> "$T/starts.log"
sleep 2
AGENT
write_config "$T/run.yaml" "{template: command, command: [sh, $T/agent.sh], options: {sandbox: off}}" \
	"[c2c/gemm, c2c/dot, c2c/transpose]"

"$ARENA" --store "$STORE" run "$T/run.yaml" > "$T/run1.log" 2>&1 &
pid=$!
# Kill while the second task's agent is running.  The first task's
# evaluation comes before it and may wait for the host's device lock
# behind another test's timing: up to 5 minutes (the loop ends as soon
# as the agent starts).
for i in $(seq 1 3000); do
	[ "$(wc -l 2>/dev/null < "$T/starts.log" || echo 0)" -ge 2 ] && break
	sleep 0.1
done
[ "$(wc -l < "$T/starts.log")" -ge 2 ] || fail "second agent never started"
kill -9 $pid
wait $pid 2>/dev/null
run=$(latest_run)
first="$STORE/runs/$run/tasks/c2c_dot/task_result.yaml"
[ -f "$first" ] || fail "first task (c2c/dot) has no result before the kill"
stamp1=$(grep '^evaluated_at' "$first")
note "killed during the agent of task 2; first result: $stamp1"

# Resume, and kill again as soon as a runner is evaluating task 3.
"$ARENA" --store "$STORE" resume "$run" > "$T/run2.log" 2>&1 &
pid=$!
for i in $(seq 1 3000); do
	grep -q 'eval_start *c2c/transpose' "$T/run2.log" && break
	sleep 0.1
done
sleep 0.5
kill -9 $pid
wait $pid 2>/dev/null
note "killed during the evaluation of task 3"

"$ARENA" --store "$STORE" resume --latest > "$T/run3.log" 2>&1 ||
	{ cat "$T/run3.log"; fail "resume failed"; }

d="$STORE/runs/$run"
for t in c2c_dot c2c_gemm c2c_transpose; do
	[ -f "$d/tasks/$t/task_result.yaml" ] || fail "$t has no task_result.yaml"
done
[ "$(grep '^evaluated_at' "$first")" = "$stamp1" ] ||
	fail "the first task was evaluated again although nothing changed"
starts=$(sort "$T/starts.log" | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
note "agent starts: $starts"
[ "$(grep -c c2c/dot "$T/starts.log")" = 1 ] || fail "dot agent ran twice: $starts"
[ "$(grep -c c2c/gemm "$T/starts.log")" = 2 ] || fail "interrupted gemm agent not relaunched exactly once: $starts"
[ "$(grep -c c2c/transpose "$T/starts.log")" = 1 ] || fail "transpose agent ran twice: $starts"
grep -q 'restarts: 1' "$d/tasks/c2c_gemm/task_result.yaml" ||
	fail "gemm result does not record the agent restart"
rows=$(tail -n +2 "$d/summary.csv" | wc -l)
[ "$rows" = 3 ] || fail "summary.csv has $rows rows, expected 3"
grep -q '^run ' "$T/run1.log" || fail "run did not print its id"
"$ARENA" --store "$STORE" status "$run" | grep -q 'done' || fail "run not done"
# A third resume has nothing to do and changes nothing.
before=$(md5sum "$d"/tasks/*/task_result.yaml)
"$ARENA" --store "$STORE" resume "$run" > /dev/null 2>&1 || fail "idle resume failed"
[ "$(md5sum "$d"/tasks/*/task_result.yaml)" = "$before" ] || fail "idle resume rewrote results"
echo ok
