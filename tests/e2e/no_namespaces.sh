# Where the kernel refuses namespaces, arena says so instead of running
# candidates and agents silently unconfined (DESIGN §3.8; docs/evaluator.md
# §8, docs/agents.md).  The refusal is made here, not assumed: everything
# runs in a user namespace without CAP_SYS_ADMIN that may create no further
# user namespace, so neither a mount nor a PID namespace can be had (as in
# a container without them).  Checked: `arena doctor` says the confinement
# is off; an evaluation completes with `sandboxed: false`;
# ARENA_SANDBOX=on refuses to evaluate; a command agent with `sandbox: on`
# refuses to start; with the default `auto` it runs, recorded as not
# sandboxed, and the processes it leaves behind are still killed before
# the snapshot (the holder's subreaper fallback); the run's report warns.
# Skips where this machine cannot make such a namespace.
. "$(dirname "$0")/lib.sh"

cage() {
	unshare -r sh -c 'echo 0 > /proc/sys/user/max_user_namespaces &&
		exec setpriv --bounding-set -sys_admin "$@"' cage "$@"
}
command -v unshare >/dev/null && command -v setpriv >/dev/null &&
	cage true 2>/dev/null || { echo "skip: cannot make a user namespace here"; exit 77; }
cage unshare -m true 2>/dev/null &&
	{ echo "skip: the cage still allows mount namespaces"; exit 77; }
cage unshare -U true 2>/dev/null &&
	{ echo "skip: the cage still allows user namespaces"; exit 77; }

cage "$ARENA" doctor > "$T/doctor.txt" 2>&1
grep -q "confinement    off" "$T/doctor.txt" ||
	{ cat "$T/doctor.txt"; fail "doctor does not say the confinement is off"; }

mkdir "$T/ws"
cp "$ROOT/tasks/c2c/gemm/kernel.c" "$T/ws/"
cage "$ARENA" --store "$STORE" eval c2c/gemm --workspace "$T/ws" --quick \
	> "$T/eval.yaml" 2>&1 || { cat "$T/eval.yaml"; fail "arena eval failed"; }
grep -q '^status: ok' "$T/eval.yaml" || { cat "$T/eval.yaml"; fail "not ok"; }
grep -q '^sandboxed: false' "$T/eval.yaml" ||
	fail "an unconfined evaluation does not say sandboxed: false"
note "unconfined evaluation: ok, sandboxed: false"

ARENA_SANDBOX=on cage "$ARENA" --store "$STORE" eval c2c/gemm --workspace "$T/ws" \
	--quick --no-cache > "$T/eval_on.txt" 2>&1 &&
	{ cat "$T/eval_on.txt"; fail "ARENA_SANDBOX=on evaluated without a sandbox"; }
grep -q 'ARENA_SANDBOX=on, but' "$T/eval_on.txt" ||
	{ cat "$T/eval_on.txt"; fail "ARENA_SANDBOX=on refused without saying why"; }
note "ARENA_SANDBOX=on: refused ($(tail -n 1 "$T/eval_on.txt" | cut -c1-120))"

A="$ROOT/tests/agents/attacks"
cat > "$T/run.yaml" <<CFG
agents:
  - {name: auto, template: command, command: [sh, $A/late_writer.sh]}
  - {name: required, template: command, command: [sh, $A/late_writer.sh], options: {sandbox: "on"}}
tasks: [c2c/gemm]
device: host
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 4, max_pairs: 20}
CFG
cage "$ARENA" --store "$STORE" run "$T/run.yaml" > "$T/run.log" 2>&1 ||
	{ cat "$T/run.log"; fail "arena run failed"; }
d="$STORE/runs/$(latest_run)"
t="$d/tasks/c2c_gemm"
r="$t/task_result.yaml"
[ -f "$r" ] || { cat "$T/run.log"; fail "the auto attempt has no result"; }
grep -q '"sandboxed":false' "$t/logs/trace.jsonl" ||
	fail "the agent's trace does not say it ran unsandboxed"
grep -q '"sandbox_unavailable"' "$t/logs/trace.jsonl" ||
	fail "the agent's trace does not say why there was no sandbox"
grep -q '"contained":"subreaper"' "$t/logs/trace.jsonl" ||
	fail "the agent was not held by the subreaper fallback: $(tail -n 2 "$t/logs/trace.jsonl")"
grep -q "written after the agent ended" "$t/workspace/kernel.c" &&
	fail "a process the agent left wrote the workspace after it ended"
[ "$(sed -n 's/^status: //p' "$r" | head -n 1)" = ok ] ||
	fail "auto attempt: $(sed -n 's/^status: //p' "$r"): $(grep -E '^(compilation_error_message|correctness_error_message|speedup_calculation_error_message): [^n]' "$r" | cut -c1-400)"
grep -q '^sandboxed: false' "$r" || fail "the auto attempt's result does not say sandboxed: false"
note "sandbox auto: ran unsandboxed, marked, leftovers killed by the subreaper"

r2="$d/tasks/c2c_gemm__r2/task_result.yaml"
grep -q "sandbox: on, but" "$r2" ||
	{ cat "$r2"; fail "an agent with sandbox: on was not refused"; }
grep -q "left two processes behind" "$d/tasks/c2c_gemm__r2/workspace/notes.txt" 2>/dev/null &&
	fail "an agent with sandbox: on ran without its sandbox"
note "sandbox on: refused"

grep -q "^WARNING: [0-9]* of [0-9]* evaluations ran unconfined" "$d/report.txt" ||
	{ cat "$d/report.txt"; fail "the run's report does not warn of unconfined evaluations"; }
echo ok
