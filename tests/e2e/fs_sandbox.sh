# The agent sandbox hides the mount wherever it is mounted (here under
# /var/tmp, outside the /tmp that the sandbox always replaces): a
# sandboxed agent of a run launched through the mount cannot read another
# run's result, reports or workspace, nor the task catalogue, through it,
# and cannot write there; it still reads its own ../score and works in its
# own workspace through the mount.  Skips where bubblewrap cannot run.
. "$(dirname "$0")/fs_lib.sh"
"$ARENA" check-agents --agents noop --json > "$T/check.json" || fail "check-agents"
grep -q '"sandbox":	true' "$T/check.json" || {
	echo "skip: bubblewrap is not available here"; exit 77; }
MNT=$(mktemp -d /var/tmp/arena-mnt.XXXXXX)
trap 'fs_cleanup; rmdir "$MNT" 2>/dev/null' EXIT

export ARENA_CLAUDE_BIN="$ROOT/tests/agents/fake_cli.sh"
export FAKE_SCENARIO=escape
fs_mount

# Run A: finished, with a result, reports and a workspace.
cheap_config "$T/a.yaml" "[c2c/saxpy]"
a=$(new_run "$T/a.yaml")
wait_status "$a" done 180
A="$MNT/runs/$a"
ws_sum=$(cksum < "$STORE/runs/$a/tasks/c2c_saxpy/workspace/kernel.c")

# Run B: a sandboxed agent that tries A's files through the mount.  Its
# executor gets its environment from the daemon: remount with it.
fs_umount
export FAKE_SECRETS="$A/tasks/c2c_saxpy/task_result.yaml:$A/summary.csv:$A/events:$A/tasks/c2c_saxpy/workspace/kernel.c:$MNT/tasks/c2c/saxpy/config.yaml:$MNT/README:../score"
export FAKE_TARGETS="$A/tasks/c2c_saxpy/workspace/kernel.c:$MNT/runs/new:kernel.c"
fs_mount
cat > "$T/b.yaml" <<CFG
agent: {template: claude_code, options: {sandbox: on, env_pass: "FAKE_CLI,FAKE_SCENARIO,FAKE_TARGETS,FAKE_SECRETS"}}
tasks: [c2c/saxpy]
device: host
timing: {case_budget_s: 0.05, blocks: 1, min_pairs: 2, max_pairs: 4, correctness_trials: 3}
CFG
b=$(new_run "$T/b.yaml")
wait_status "$b" done 180
log="$STORE/runs/$b/tasks/c2c_saxpy/logs/agent.log"
cat "$log"
grep -q "FAKE escape read" "$log" || { cat "$MNT/runs/$b/events"; cat "$STORE/runs/$b/logs/executor.log"; fail "the escape scenario did not run"; }
grep -q "FAKE cwd: $MNT/runs/$b/tasks/c2c_saxpy/workspace" "$log" ||
	fail "the agent did not work in its workspace through the mount"
grep -q '"sandboxed":true' "$STORE/runs/$b/tasks/c2c_saxpy/logs/trace.jsonl" || fail "not sandboxed"
for p in "$A/tasks/c2c_saxpy/task_result.yaml" "$A/summary.csv" "$A/events" \
	"$A/tasks/c2c_saxpy/workspace/kernel.c" "$MNT/tasks/c2c/saxpy/config.yaml" "$MNT/README"; do
	grep -q "FAKE escape read $p: denied" "$log" || fail "the agent read $p"
done
grep -q "FAKE escape read ../score: ok" "$log" || fail "the agent could not read its own score"
grep -q "FAKE escape write $A/tasks/c2c_saxpy/workspace/kernel.c: denied" "$log" ||
	fail "the agent wrote into another run's workspace"
# (its write to runs/new lands in the private tmpfs that replaces the
# mount: no run may come of it, checked below)
grep -q "FAKE escape write kernel.c: ok" "$log" || fail "the agent could not write its own workspace"
[ "$(cksum < "$STORE/runs/$a/tasks/c2c_saxpy/workspace/kernel.c")" = "$ws_sum" ] ||
	fail "run A's workspace changed"
[ "$(ls "$STORE/runs" | wc -l)" = 2 ] || fail "a third run exists"
grep -q tampered "$STORE/runs/$b/tasks/c2c_saxpy/workspace/kernel.c" ||
	fail "the agent's own write did not land"
fs_umount
wait_executors 30
echo ok
