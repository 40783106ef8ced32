# The real Gemini CLI, offline, end to end: `arena run` with the gemini
# agent against a scripted Gemini API on 127.0.0.1
# (tests/agents/mock_gemini.js, reached through GOOGLE_GEMINI_BASE_URL).
# The script reads TASK.md, evaluates (`arena mcp call evaluate`, then the
# MCP tool in a second run), rewrites the kernel, evaluates again and
# finishes; the run's task_result, trace and the model's view must match:
# 1500 input and 150 output tokens, two verdicts, the edit kept.  Skips
# when the gemini CLI or node is not installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agents_lib.sh"
real_cli gemini ARENA_GEMINI_BIN
gemini=$cli

one_run() {	# name, mock flag, mcp true|false
	name=$1
	# shellcheck disable=SC2086 # $2: one mock flag, or none
	start_mock mock_gemini.js "$name" 60 $2
	cat > "$T/$name.yaml" <<CFG
agent:
  template: gemini
  model: gemini-2.5-flash
  timeout_seconds: 300
  options: {mcp: $3}
tasks: [c2c/gemm]
device: host
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 4, max_pairs: 20}
CFG
	ARENA_GEMINI_BIN=$gemini GEMINI_API_KEY=test-not-a-key \
		GOOGLE_GEMINI_BASE_URL="http://127.0.0.1:$(cat "$T/port")" \
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
	grep -q '^pass_correctness: true' "$r" || fail "$name: final result not correct"
	grep -q 'tuned by the scripted model' "$d/workspace/kernel.c" || fail "$name: the scripted edit is missing"
	[ "$(grep -c 'Verdict: ' "$T/$name.mock.log")" -eq 2 ] ||
		fail "$name: the model did not get two verdicts: $(cut -c1-600 "$T/$name.mock.log")"
	t="$d/logs/trace.jsonl"
	[ "$(grep -c '"type":"evaluation","via":"bridge"' "$t")" -eq 2 ] || fail "$name: trace evaluations"
	grep -q '"type":"outcome","status":"completed"' "$t" || fail "$name: trace outcome"
}

one_run bash "" false
one_run mcp --mcp true
grep -q '"name":"mcp_arena_evaluate"' "$STORE"/runs/*_mcp/tasks/c2c_gemm/logs/trace.jsonl ||
	fail "mcp: the tool call is not in the trace"
echo ok
