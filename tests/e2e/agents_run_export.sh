# CLI agents inside a whole run (the fake claude, one scenario per task):
# a completed agent and an API failure reported with exit status 0 are
# both recorded as agent_execution and both tasks are still evaluated;
# `arena export` writes one episode per task with its reward and steps;
# `arena mcp` answers a scripted JSON-RPC session on stdio, evaluating a
# directory with the engine; `arena check-agents` tells installed from
# missing and authenticated from not.
. "$(dirname "$0")/lib.sh"
fake="$ROOT/tests/agents/fake_cli.sh"

write_config "$T/c.yaml" "{template: claude_code, options: {env_pass: \"FAKE_CLI,FAKE_PLAN\"}}" "[c2c/gemm, c2c/dot]"
ARENA_CLAUDE_BIN="$fake" FAKE_PLAN="c2c/gemm=ok c2c/dot=is_error" \
	"$ARENA" --store "$STORE" run "$T/c.yaml" > "$T/run.log" 2>&1 || { cat "$T/run.log"; fail "run failed"; }
run=$(latest_run)
d="$STORE/runs/$run/tasks"
grep -A9 '^agent_execution:' "$d/c2c_gemm/task_result.yaml" > "$T/ok"
grep -q 'status: completed' "$T/ok" && grep -q 'turns: 4$' "$T/ok" &&
	grep -q 'input_tokens: 1600$' "$T/ok" && grep -q 'output_tokens: 345$' "$T/ok" &&
	grep -q 'cost_usd: 0.0421$' "$T/ok" || fail "gemm agent_execution: $(cat "$T/ok")"
grep -A9 '^agent_execution:' "$d/c2c_dot/task_result.yaml" > "$T/err"
grep -q 'status: failed' "$T/err" && grep -q 'API status 529' "$T/err" || fail "dot agent_execution: $(cat "$T/err")"
grep -q '^pass_compilation: true' "$d/c2c_dot/task_result.yaml" || fail "dot not evaluated after the agent failed"
grep -q '"type":"evaluation","via":"bridge","quick":true,"status":"' "$d/c2c_gemm/logs/trace.jsonl" ||
	fail "gemm: the in-run evaluation is not in the trace: $(grep evaluation "$d/c2c_gemm/logs/trace.jsonl")"

"$ARENA" --store "$STORE" export "$run" --format jsonl -o "$T/ep.jsonl" || fail "export failed"
[ "$(wc -l < "$T/ep.jsonl")" -eq 2 ] || fail "export: two episodes expected"
grep '"task_id":"c2c/gemm"' "$T/ep.jsonl" > "$T/ep1"
grep -q '"schema":"arena.episode/2"' "$T/ep1" && grep -q '"reward":' "$T/ep1" &&
	grep -q '"score":' "$T/ep1" && grep -q '"type":"tool_call"' "$T/ep1" &&
	grep -q '"agent_execution":{"status":"completed"' "$T/ep1" &&
	grep -q '"prompt":"' "$T/ep1" || fail "export: gemm episode: $(cut -c1-600 "$T/ep1")"
# The installed CLI's version (the fake answers --version with 9.9.9), the
# final sources and their diff against the baseline, and no local path.
grep -q '"cli_version":"9.9.9"' "$T/ep1" || fail "export: no installed CLI version: $(cut -c1-600 "$T/ep1")"
grep -q '"final_sources":{"kernel.c":"' "$T/ep1" || fail "export: no final sources"
grep -q '"diff":"--- a/kernel.c' "$T/ep1" || fail "export: no diff against the baseline"
if grep -q "$STORE" "$T/ep.jsonl"; then fail "export: absolute paths of the store: $(grep -o "$STORE[^\"]*" "$T/ep.jsonl" | head -n 3)"; fi
"$ARENA" --store "$STORE" export "$run" --format csv > /dev/null 2>&1 && fail "export accepted an unknown format"

# arena mcp on stdio, evaluating with the engine (no bridge).
cp -R "$ROOT/tasks/c2c/gemm" "$T/ws"
cat > "$T/rpc.in" <<'RPC'
{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":"two","method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"evaluate","arguments":{"quick":true}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"show_task","arguments":{}}}
{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"last_result"}}
{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"rm_rf"}}
{"jsonrpc":"2.0","id":7,"method":"resources/list"}
garbage
RPC
unset ARENA_EVAL_SOCKET
"$ARENA" --store "$STORE" mcp --task c2c/gemm --workspace "$T/ws" < "$T/rpc.in" > "$T/rpc.out" 2> "$T/rpc.err" ||
	fail "arena mcp exited non-zero: $(cat "$T/rpc.err")"
[ "$(wc -l < "$T/rpc.out")" -eq 8 ] || fail "mcp: 8 responses expected: $(cat "$T/rpc.out")"
sed -n 1p "$T/rpc.out" | grep -q '"id":1,"result":{"protocolVersion":"2025-03-26"' || fail "mcp initialize"
sed -n 2p "$T/rpc.out" | grep -q '"id":"two","result":{"tools":\[{"name":"evaluate"' || fail "mcp tools/list"
sed -n 3p "$T/rpc.out" | grep -q 'Verdict: correct (status ok).*"isError":false' || fail "mcp evaluate: $(sed -n 3p "$T/rpc.out" | cut -c1-300)"
sed -n 4p "$T/rpc.out" | grep -q '# Task c2c/gemm' || fail "mcp show_task"
sed -n 5p "$T/rpc.out" | grep -q 'Verdict: correct' || fail "mcp last_result"
sed -n 6p "$T/rpc.out" | grep -q '"code":-32602' || fail "mcp unknown tool"
sed -n 7p "$T/rpc.out" | grep -q '"code":-32601' || fail "mcp unknown method"
sed -n 8p "$T/rpc.out" | grep -q '"id":null,"error":{"code":-32700' || fail "mcp parse error"
echo 'int broken(' >> "$T/ws/kernel.c"
"$ARENA" --store "$STORE" mcp call evaluate --quick --task c2c/gemm --workspace "$T/ws" > "$T/call.out" 2>&1
[ $? -eq 1 ] || fail "mcp call on a broken kernel should exit 1"
grep -q 'Verdict: does not compile' "$T/call.out" || fail "mcp call: $(head -n 3 "$T/call.out")"

# check-agents: installed vs missing, authenticated vs not.  From the
# scratch directory: the fake CLI's probes act in their working directory.
cd "$T" || fail "cannot enter $T"
ARENA_CLAUDE_BIN="$fake" ANTHROPIC_API_KEY=x "$ARENA" check-agents --agents claude_code,autotune > "$T/ca" ||
	fail "check-agents: fake claude with a key should be ready: $(cat "$T/ca")"
grep -q '^claude_code .*authenticated' "$T/ca" || fail "check-agents output: $(cat "$T/ca")"
ARENA_CODEX_BIN=/nonexistent "$ARENA" check-agents --agents codex > "$T/cb" && fail "check-agents: missing codex passed"
grep -q 'not installed' "$T/cb" || fail "check-agents: $(cat "$T/cb")"
"$ARENA" check-agents "$T/c.yaml" --json > "$T/cc.json" 2>&1
grep -q '"agent":	"claude_code"' "$T/cc.json" || fail "check-agents CONFIG: $(cat "$T/cc.json")"
echo ok
