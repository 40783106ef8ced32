#!/bin/sh
# tests/agents/fake_cli.sh - a stand-in for the agent CLIs (claude, codex,
# gemini, cursor-agent) that replays their documented output formats.
# Launchers find it through ARENA_<CLI>_BIN; the run config passes
# FAKE_CLI and FAKE_SCENARIO through (agent.options.env_pass).
#
#   FAKE_CLI       claude (default) | codex | gemini | cursor
#   FAKE_PLAN      "TASK=SCENARIO ...": a scenario per task
#   FAKE_SCENARIO  ok | is_error | exit1 | hang | flood | noresult |
#                  escape | turn_failed | stdin_wait
#   FAKE_EDIT      the file to edit (default kernel.c)
#   FAKE_TARGETS   colon-separated paths the `escape` scenario tries to
#                  write; FAKE_SECRETS, paths it tries to read
#
# What it saw goes to stderr (the launcher's logs/agent.log) as
# "FAKE key: value" lines: argv, cwd, uid, selected environment (secrets
# only as set/unset), the prompt's size and first line, and for `ok` the
# evaluator's verdict.  stdout carries only the replayed events.
# `--version` (arena records the installed version of a CLI at launch).
if [ "${1:-}" = --version ]; then
	echo "9.9.9 (fake ${FAKE_CLI:-claude})"
	exit 0
fi
cli=${FAKE_CLI:-claude}
scenario=${FAKE_SCENARIO:-ok}
# FAKE_PLAN="c2c/saxpy=ok c2c/dot=is_error": a scenario per task.
for p in ${FAKE_PLAN:-}; do
	[ "${p%%=*}" = "${ARENA_TASK_ID:-}" ] && scenario=${p#*=}
done
edit=${FAKE_EDIT:-kernel.c}

log() { printf "FAKE %s\n" "$*" >&2; }
# dash's echo interprets backslashes: events go through printf.
emit() { printf "%s\n" "$*"; }
# JSON string of $1 (quotes, backslashes, control characters).
js() { printf '%s' "$1" | awk 'BEGIN { ORS = "" } { gsub(/\\/, "\\\\"); gsub(/"/, "\\\""); gsub(/\t/, "\\t"); gsub(/\r/, ""); if (NR > 1) print "\\n"; print }' | sed 's/^/"/; s/$/"/'; }

log "argv: $*"
log "cwd: $(pwd)"
log "uid: $(id -u)"
for v in HOME IS_SANDBOX ARENA_WORKSPACE ARENA_TASK_ID ARENA_EVAL_SOCKET \
	CLAUDE_CONFIG_DIR CODEX_HOME ANTHROPIC_BASE_URL ARENA_STORE TMPDIR \
	LD_LIBRARY_PATH; do
	eval "val=\${$v-<unset>}"
	log "env $v=$val"
done
for v in ANTHROPIC_API_KEY OPENAI_API_KEY DEEPSEEK_API_KEY ANTHROPIC_AUTH_TOKEN \
	SECRET_NOT_PASSED; do
	eval "set_=\${$v+set}"
	log "env $v is ${set_:-unset}"
done
log "home files: $(cd "$HOME" 2>/dev/null && find . -type f | sort | tr '\n' ' ')"
if [ "$scenario" = stdin_wait ]; then
	prompt=$(cat)	# a launcher that leaves stdin open hangs here
else
	prompt=$(cat)
fi
log "stdin bytes: $(printf '%s' "$prompt" | wc -c)"
log "stdin first line: $(printf '%s\n' "$prompt" | head -n 1)"

evaluate() {	# runs arena's evaluator through the bridge; sets out, rc
	out=$(arena mcp call evaluate --quick 2>&1)
	rc=$?
	log "evaluate rc: $rc"
	log "evaluate verdict: $(printf '%s\n' "$out" | head -n 1)"
}

do_edit() {
	printf '\n/* edited by the fake agent */\n' >> "$edit"
}

claude_ok() {
	emit '{"type":"system","subtype":"init","session_id":"fake-session-1","model":"fake-model","cwd":"'"$(pwd)"'","tools":["Bash","Edit"],"mcp_servers":[]}'
	emit '{"type":"assistant","message":{"id":"msg_1","model":"fake-model","content":[{"type":"text","text":"I will evaluate the baseline first."},{"type":"tool_use","id":"tu_1","name":"Bash","input":{"command":"arena mcp call evaluate --quick"}}],"usage":{"input_tokens":100,"output_tokens":20}},"session_id":"fake-session-1"}'
	evaluate
	emit '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_1","content":'"$(js "$out")"',"is_error":'"$([ $rc = 0 ] && echo false || echo true)"'}]},"session_id":"fake-session-1"}'
	do_edit
	emit '{"type":"assistant","message":{"id":"msg_2","model":"fake-model","content":[{"type":"thinking","thinking":"A comment changes nothing."},{"type":"tool_use","id":"tu_2","name":"Edit","input":{"file_path":"'"$(pwd)/$edit"'","old_string":"a","new_string":"b"}}],"usage":{"input_tokens":200,"output_tokens":30}},"session_id":"fake-session-1"}'
	emit '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"tu_2","content":[{"type":"text","text":"edited"}]}]},"session_id":"fake-session-1"}'
	emit '{"type":"rate_limit_event","info":{}}'
	emit '{"type":"assistant","message":{"id":"msg_3","model":"fake-model","content":[{"type":"text","text":"Done: the kernel is as fast as it gets."}],"usage":{"input_tokens":300,"output_tokens":40}},"session_id":"fake-session-1"}'
	emit '{"type":"result","subtype":"success","is_error":false,"duration_ms":1234,"num_turns":4,"result":"Done: the kernel is as fast as it gets.","session_id":"fake-session-1","total_cost_usd":0.0421,"usage":{"input_tokens":1200,"cache_creation_input_tokens":100,"cache_read_input_tokens":300,"output_tokens":345}}'
}

codex_ok() {
	emit '{"type":"thread.started","thread_id":"fake-thread-1"}'
	emit '{"type":"turn.started"}'
	emit '{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"Evaluate first."}}'
	emit '{"type":"item.started","item":{"id":"item_1","type":"command_execution","command":"arena mcp call evaluate --quick","status":"in_progress"}}'
	evaluate
	emit '{"type":"item.completed","item":{"id":"item_1","type":"command_execution","command":"arena mcp call evaluate --quick","aggregated_output":'"$(js "$out")"',"exit_code":'"$rc"',"status":"completed"}}'
	do_edit
	emit '{"type":"item.completed","item":{"id":"item_2","type":"file_change","changes":[{"path":"'"$edit"'","kind":"update"}],"status":"completed"}}'
	emit '{"type":"error","message":"Reconnecting... 1/5"}'
	emit '{"type":"item.completed","item":{"id":"item_3","type":"agent_message","text":"Done: kept the kernel."}}'
	emit '{"type":"turn.completed","usage":{"input_tokens":1500,"cached_input_tokens":300,"output_tokens":345}}'
}

gemini_ok() {
	emit '{"type":"init","timestamp":"2026-01-01T00:00:00Z","session_id":"fake-gemini-1","model":"gemini-fake"}'
	emit '{"type":"message","role":"user","content":"prompt","timestamp":"2026-01-01T00:00:00Z"}'
	emit '{"type":"message","role":"assistant","content":"I will ","delta":true}'
	emit '{"type":"message","role":"assistant","content":"evaluate.","delta":true}'
	emit '{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"arena mcp call evaluate --quick"}}'
	evaluate
	emit '{"type":"tool_result","tool_id":"t1","status":"success","output":'"$(js "$out")"'}'
	do_edit
	emit '{"type":"message","role":"assistant","content":"Done.","delta":true}'
	emit '{"type":"result","status":"success","stats":{"total_tokens":1845,"input_tokens":1500,"output_tokens":345,"cached":300,"input":1200,"duration_ms":10,"tool_calls":1}}'
}

cursor_ok() {
	emit '{"type":"system","subtype":"init","apiKeySource":"env","cwd":"'"$(pwd)"'","session_id":"fake-cursor-1","model":"composer-fake","permissionMode":"default"}'
	emit '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Evaluating."}]},"session_id":"fake-cursor-1"}'
	emit '{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"arena mcp call evaluate --quick"}}},"session_id":"fake-cursor-1"}'
	evaluate
	emit '{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"arena mcp call evaluate --quick"},"result":{"success":{"exitCode":'"$rc"'}}}},"session_id":"fake-cursor-1"}'
	do_edit
	emit '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"session_id":"fake-cursor-1"}'
	emit '{"type":"result","subtype":"success","duration_ms":100,"duration_api_ms":90,"is_error":false,"result":"Done.","session_id":"fake-cursor-1","usage":{"inputTokens":1200,"outputTokens":345,"cacheReadTokens":300}}'
}

case $scenario in
ok)
	case $cli in
	claude) claude_ok ;;
	codex) codex_ok ;;
	gemini) gemini_ok ;;
	cursor) cursor_ok ;;
	esac
	exit 0 ;;
is_error)	# an API failure reported with exit status 0
	emit '{"type":"system","subtype":"init","session_id":"s","model":"m"}'
	emit '{"type":"result","subtype":"success","is_error":true,"num_turns":1,"result":"API Error: 529 Overloaded","api_error_status":529,"terminal_reason":"api_error","total_cost_usd":0.001,"usage":{"input_tokens":10,"output_tokens":0}}'
	exit 0 ;;
exit1)		# what the CLI prints as root with bypass and no IS_SANDBOX
	echo "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons" >&2
	exit 1 ;;
turn_failed)
	emit '{"type":"thread.started","thread_id":"t"}'
	emit '{"type":"turn.started"}'
	emit '{"type":"turn.failed","error":{"message":"stream disconnected before completion"}}'
	exit 1 ;;
noresult)
	emit '{"type":"system","subtype":"init","session_id":"s","model":"m"}'
	emit '{"type":"assistant","message":{"id":"m1","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":5,"output_tokens":1}}}'
	exit 0 ;;
hang)		# ignores SIGTERM: only SIGKILL ends it
	trap '' TERM
	emit '{"type":"system","subtype":"init","session_id":"s","model":"m"}'
	(trap '' TERM; while :; do sleep 1; done) &
	while :; do sleep 1; done ;;
flood)		# 20 MB of noise and a 9 MB line, stderr too, then a result
	i=0
	while [ $i -lt 20 ]; do
		head -c 1000000 /dev/zero | tr '\0' 'x' | fold -w 1000; echo
		head -c 50000 /dev/zero | tr '\0' 'e' >&2
		i=$((i + 1))
	done
	printf '{"type":"assistant","message":{"id":"big","content":[{"type":"text","text":"'
	head -c 9000000 /dev/zero | tr '\0' 'y'
	printf '"}]}}\n'
	emit '{"type":"result","subtype":"success","is_error":false,"num_turns":2,"result":"survived","total_cost_usd":0.5,"usage":{"input_tokens":7,"output_tokens":3}}'
	printf '{"type":"bogus", no newline at the end'
	exit 0 ;;
escape)		# tries to leave the workspace
	IFS=:	# reads first: a write into a private tmpfs creates the file
	for p in ${FAKE_SECRETS:-}; do
		if [ -r "$p" ] && cat "$p" >/dev/null 2>&1; then log "escape read $p: ok"; else log "escape read $p: denied"; fi
	done
	for p in ${FAKE_TARGETS:-}; do
		if (echo "tampered" >> "$p") 2>/dev/null; then log "escape write $p: ok"; else log "escape write $p: denied"; fi
	done
	unset IFS
	emit '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"tried","usage":{"input_tokens":1,"output_tokens":1}}'
	exit 0 ;;
stdin_wait)
	emit '{"type":"result","subtype":"success","is_error":false,"num_turns":1,"result":"stdin closed","usage":{"input_tokens":1,"output_tokens":1}}'
	exit 0 ;;
*)
	echo "fake_cli: unknown scenario $scenario" >&2
	exit 3 ;;
esac
