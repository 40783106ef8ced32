# The real Claude Code CLI, offline, end to end: `arena run` with the
# claude_code agent against a scripted Anthropic Messages server on
# 127.0.0.1 (tests/agents/mock_anthropic.js).  The script reads TASK.md,
# evaluates (through `arena mcp call evaluate` in the first run, through
# the MCP tool mcp__arena__evaluate in the second), rewrites the kernel,
# evaluates again and finishes.  The run's task_result, trace and export
# must match the script: 5 turns, 1500 input and 150 output tokens, the
# CLI's own cost, two evaluations with their verdicts, the edit kept.
# Skips when the claude CLI or node is not installed
# (scripts/install-agents.sh installs it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agents_lib.sh"
real_cli claude ARENA_CLAUDE_BIN
claude=$cli

one_run() {	# name, extra mock flag, options yaml
	name=$1
	# shellcheck disable=SC2086 # $2: one mock flag, or none
	start_mock mock_anthropic.js "$name" 40 $2
	cat > "$T/$name.yaml" <<CFG
agent: {template: claude_code, model: claude-sonnet-4-5, timeout_seconds: 300, $3}
tasks: [c2c/gemm]
device: host
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 4, max_pairs: 20}
CFG
	ARENA_CLAUDE_BIN=$claude ANTHROPIC_BASE_URL="http://127.0.0.1:$(cat "$T/port")" \
		ANTHROPIC_API_KEY=sk-test-not-a-key \
		"$ARENA" --store "$STORE" run "$T/$name.yaml" --run-suffix "$name" \
		> "$T/$name.run.log" 2>&1 || { cat "$T/$name.run.log"; fail "$name: run failed"; }
	kill $mock 2>/dev/null; wait $mock 2>/dev/null
	run=$(ls -1 "$STORE/runs" | grep "_$name\$" | tail -n 1)
	d="$STORE/runs/$run/tasks/c2c_gemm"
	r="$d/task_result.yaml"
	[ -f "$r" ] || { cat "$T/$name.run.log"; fail "$name: no task_result.yaml"; }
	grep -A9 '^agent_execution:' "$r" > "$T/$name.exec"
	grep -q '  status: completed' "$T/$name.exec" || { cat "$T/$name.exec"; tail -n 20 "$d/logs/agent.log"; fail "$name: agent not completed"; }
	grep -q '  turns: 5$' "$T/$name.exec" || fail "$name: turns: $(cat "$T/$name.exec")"
	grep -q '  input_tokens: 1500$' "$T/$name.exec" || fail "$name: input tokens: $(cat "$T/$name.exec")"
	grep -q '  output_tokens: 150$' "$T/$name.exec" || fail "$name: output tokens: $(cat "$T/$name.exec")"
	grep -q '  cost_usd: 0.00675$' "$T/$name.exec" || fail "$name: cost (sonnet prices): $(cat "$T/$name.exec")"
	grep -q '^pass_correctness: true' "$r" || fail "$name: final result not correct"
	grep -q 'tuned by the scripted model' "$d/workspace/kernel.c" || fail "$name: the scripted edit is missing"
	# The model saw the evaluator's verdicts (steps 2 and 4 carry them;
	# quick timings under load may be rejected, so any verdict counts).
	[ "$(grep -c 'Verdict: ' "$T/$name.mock.log")" -eq 2 ] ||
		fail "$name: the model did not get two verdicts: $(cat "$T/$name.mock.log")"
	t="$d/logs/trace.jsonl"
	[ "$(grep -c '"type":"evaluation","via":"bridge"' "$t")" -eq 2 ] || fail "$name: trace evaluations"
	[ "$(grep -c '"type":"tool_call"' "$t")" -eq 4 ] || fail "$name: trace tool calls"
	grep -q '"type":"outcome","status":"completed"' "$t" || fail "$name: trace outcome"
	ls "$d"/logs/native/.claude/projects/*/*.jsonl > /dev/null 2>&1 ||
		fail "$name: the CLI's own transcript was not archived: $(find "$d/logs/native" 2>&1 | head -n 5)"
	find "$d/logs/native" -name '*.credentials*' -o -name 'auth.json' | grep -q . &&
		fail "$name: credentials were archived"
}

one_run bash "" "options: {mcp: false}"
grep -q '"sandboxed":true' "$STORE"/runs/*_bash/tasks/c2c_gemm/logs/trace.jsonl &&
	note "claude ran sandboxed (bubblewrap)"
one_run mcp --mcp "options: {mcp: true}"
grep -q '"mcp_servers":\[{"name":"arena","status":"connected"' \
	"$STORE"/runs/*_mcp/tasks/c2c_gemm/logs/trace.jsonl || fail "mcp: arena server not connected"
grep -q 'mcp__arena__evaluate' "$STORE"/runs/*_mcp/tasks/c2c_gemm/logs/trace.jsonl || fail "mcp: tool not called"

# The export carries the episode with its reward and steps.
run=$(ls -1 "$STORE/runs" | grep "_mcp\$")
"$ARENA" --store "$STORE" export "$run" --format jsonl > "$T/episodes.jsonl" || fail "export failed"
[ "$(wc -l < "$T/episodes.jsonl")" -eq 1 ] || fail "export: one episode expected"
grep -q '"task_id":"c2c/gemm"' "$T/episodes.jsonl" || fail "export: task id"
grep -q '"reward":' "$T/episodes.jsonl" || fail "export: reward"
grep -q '"type":"evaluation"' "$T/episodes.jsonl" || fail "export: steps"
echo ok
