# The agent sandbox: an agent (the fake CLI's `escape` scenario) tries to
# write the task's reference, the frozen baseline, the store's database,
# a file of the caller's HOME and a file in /tmp, and to read the
# reference, the held-out cases and the database.  Inside bubblewrap the
# writes land nowhere (read-only or private tmpfs) and the reads find
# nothing; outside, every file is unchanged.  Skips where bubblewrap cannot
# run.
. "$(dirname "$0")/lib.sh"

"$ARENA" check-agents --agents noop --json > "$T/check.json" || fail "check-agents"
grep -q '"sandbox":	true' "$T/check.json" || {
	echo "skip: bubblewrap is not available here: $(grep unavailable "$T/check.json")"; exit 77; }

# A private copy of the task package, so a failure cannot damage tasks/.
mkdir -p "$T/tasks/c2c"
cp -R "$ROOT/tasks/c2c/saxpy" "$T/tasks/c2c/saxpy"
export ARENA_TASKS_DIR="$T/tasks"
ref="$T/tasks/c2c/saxpy/$(awk '/^reference:/ { for (i = 1; i <= NF; i++) if ($i ~ /^file:/) { f = $(i + 1); gsub(/[},]/, "", f); print f } }' "$T/tasks/c2c/saxpy/config.yaml")"
[ -f "$ref" ] || ref="$T/tasks/c2c/saxpy/reference.c"
[ -f "$ref" ] || fail "cannot find the reference of c2c/saxpy"
held="$T/tasks/c2c/saxpy/held_out.yaml"
outside="$T/outside.txt"
homefile="$HOME/.arena-sandbox-test-$$"
echo original > "$outside"
echo original > "$homefile"
trap 'rm -rf "$T" "$homefile"' EXIT
sum_before=$(cat "$ref" "$held" | cksum)

write_config "$T/c.yaml" "{template: claude_code, options: {sandbox: on, env_pass: \"FAKE_CLI,FAKE_SCENARIO,FAKE_TARGETS,FAKE_SECRETS\"}}" "[c2c/saxpy]"
db="$STORE/arena.db"
fake="$ROOT/tests/agents/fake_cli.sh"
fake_sum=$(cksum < "$fake")
# ../baseline/kernel.c is the attempt's frozen baseline, seen from the
# workspace (the agent's cwd).
ARENA_CLAUDE_BIN="$fake" FAKE_SCENARIO=escape \
	FAKE_TARGETS="$ref:../baseline/kernel.c:../task_result.yaml:$db:$homefile:$outside:$fake" \
	FAKE_SECRETS="$ref:$held:../baseline/kernel.c:$db:$homefile" \
	"$ARENA" --store "$STORE" run "$T/c.yaml" --run-suffix escape > "$T/run.log" 2>&1 ||
	{ cat "$T/run.log"; fail "run failed"; }
log=$(ls "$STORE"/runs/*_escape/tasks/c2c_saxpy/logs/agent.log)
cat "$log"
grep -q 'FAKE escape write' "$log" || fail "the escape scenario did not run"
grep -q "FAKE escape read .*: ok" "$log" && fail "the agent read a protected file"
base="$(dirname "$log")/../baseline/kernel.c"
cmp -s "$base" "$T/tasks/c2c/saxpy/kernel.c" || fail "frozen baseline changed"
[ "$(cat "$ref" "$held" | cksum)" = "$sum_before" ] || fail "task package changed"
[ "$(cat "$outside")" = original ] || fail "a file in /tmp outside the workspace changed"
[ "$(cat "$homefile")" = original ] || fail "a file in HOME changed"
[ "$(cksum < "$fake")" = "$fake_sum" ] || fail "the repository changed"
grep -q tampered "$db" && fail "the store database changed"
grep -q tampered "$(dirname "$log")/../task_result.yaml" && fail "task_result.yaml changed"
grep -q '"sandboxed":true' "$(dirname "$log")/trace.jsonl" || fail "trace: not sandboxed"
echo ok
