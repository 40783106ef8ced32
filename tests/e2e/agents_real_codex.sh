# The real Codex CLI, offline, end to end: `arena run` with the codex
# agent against a scripted OpenAI Responses API on 127.0.0.1
# (tests/agents/mock_openai.js, reached through the agent's base_url
# option).  The script reads TASK.md, evaluates (`arena mcp call
# evaluate`, then through the MCP tool in a second run), rewrites the
# kernel, evaluates again and finishes.  The run's task_result, trace and
# the model's view must match the script: 1500 input and 150 output
# tokens (Codex's running total), two verdicts, the edit kept.  Skips when
# the codex CLI or node is not installed.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/agents_lib.sh"
real_cli codex ARENA_CODEX_BIN
codex=$cli

one_run() {	# name, mock flag, mcp true|false
	name=$1
	# shellcheck disable=SC2086 # $2: one mock flag, or none
	start_mock mock_openai.js "$name" 40 $2
	cat > "$T/$name.yaml" <<CFG
agent:
  template: codex
  model: gpt-mock
  timeout_seconds: 300
  options: {mcp: $3, base_url: "http://127.0.0.1:$(cat "$T/port")/v1",
            price_input_per_mtok: 1, price_cached_input_per_mtok: 0.1, price_output_per_mtok: 10}
tasks: [c2c/gemm]
device: host
timing: {case_budget_s: 0.2, blocks: 1, min_pairs: 4, max_pairs: 20}
CFG
	ARENA_CODEX_BIN=$codex OPENAI_API_KEY=sk-test-not-a-key \
		"$ARENA" --store "$STORE" run "$T/$name.yaml" --run-suffix "$name" \
		> "$T/$name.run.log" 2>&1 || { cat "$T/$name.run.log"; fail "$name: run failed"; }
	kill $mock 2>/dev/null; wait $mock 2>/dev/null
	run=$(ls -1 "$STORE/runs" | grep "_$name\$" | tail -n 1)
	d="$STORE/runs/$run/tasks/c2c_gemm"
	r="$d/task_result.yaml"
	[ -f "$r" ] || { cat "$T/$name.run.log"; fail "$name: no task_result.yaml"; }
	grep -A9 '^agent_execution:' "$r" > "$T/$name.exec"
	grep -q '  status: completed' "$T/$name.exec" || { cat "$T/$name.exec"; tail -n 20 "$d/logs/agent.log"; fail "$name: agent not completed"; }
	grep -q '  input_tokens: 1500$' "$T/$name.exec" || fail "$name: input tokens: $(cat "$T/$name.exec")"
	grep -q '  output_tokens: 150$' "$T/$name.exec" || fail "$name: output tokens: $(cat "$T/$name.exec")"
	# (1400 * 1 + 100 * 0.1 + 150 * 10) / 1e6
	grep -q '  cost_usd: 0.00291$' "$T/$name.exec" || fail "$name: cost: $(cat "$T/$name.exec")"
	grep -q '^pass_correctness: true' "$r" || fail "$name: final result not correct"
	grep -q 'tuned by the scripted model' "$d/workspace/kernel.c" || fail "$name: the scripted edit is missing"
	[ "$(grep -c 'Verdict: ' "$T/$name.mock.log")" -eq 2 ] ||
		fail "$name: the model did not get two verdicts: $(cut -c1-400 "$T/$name.mock.log")"
	t="$d/logs/trace.jsonl"
	[ "$(grep -c '"type":"evaluation","via":"bridge"' "$t")" -eq 2 ] || fail "$name: trace evaluations"
	grep -q '"type":"outcome","status":"completed"' "$t" || fail "$name: trace outcome"
	ls "$d"/logs/native/.codex/sessions/*/*/*/rollout-*.jsonl > /dev/null 2>&1 ||
		fail "$name: the CLI's own transcript was not archived: $(find "$d/logs/native" 2>&1 | head -n 5)"
	find "$d/logs/native" -name '*.credentials*' -o -name 'auth.json' | grep -q . &&
		fail "$name: credentials were archived"
}

one_run bash "" false
one_run mcp --mcp true
grep -q '"name":"mcp__arena__evaluate"' "$STORE"/runs/*_mcp/tasks/c2c_gemm/logs/trace.jsonl ||
	fail "mcp: the tool call is not in the trace"
echo ok
