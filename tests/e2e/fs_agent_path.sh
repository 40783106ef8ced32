# Runs launched through the mount give their agents the mounted workspace
# path, so an agent can use `cat ../score` as its evaluation tool.
. "$(dirname "$0")/fs_lib.sh"
fs_mount

cat > "$T/agent.sh" <<AGENT
#!/bin/sh
pwd > "$T/agent_pwd"
cat ../score > "$T/agent_score" 2>&1
AGENT
cat > "$T/cfg.yaml" <<CFG
agent: {template: command, command: [sh, $T/agent.sh], options: {sandbox: off}}
tasks: [c2c/dot]
device: host
timing: {case_budget_s: 0.3, blocks: 1, min_pairs: 5, max_pairs: 30}
CFG
cp "$T/cfg.yaml" "$MNT/runs/new" || fail "cp failed"
run=$(cat "$MNT/runs/new")
wait_status "$run" done 120
[ "$(cat "$T/agent_pwd")" = "$MNT/runs/$run/tasks/c2c_dot/workspace" ] ||
	fail "agent ran in '$(cat "$T/agent_pwd")', not the mounted workspace"
grep -Eq '^[0-9]+\.[0-9]{4}$' "$T/agent_score" ||
	fail "the agent's cat ../score gave: $(cat "$T/agent_score")"
echo ok
