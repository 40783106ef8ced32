# Invalid run configs are refused before anything runs, with a message that
# names the file, the field and the fix; nothing is created in the store.
. "$(dirname "$0")/lib.sh"

check() {	# name, expected substring, yaml
	printf '%s\n' "$3" > "$T/$1.yaml"
	out=$("$ARENA" --store "$STORE" run "$T/$1.yaml" 2>&1) &&
		fail "$1: accepted an invalid config"
	echo "$out" | grep -q "$1.yaml" || fail "$1: message does not name the file: $out"
	echo "$out" | grep -q -- "$2" || fail "$1: expected '$2' in: $out"
	note "$1: $out"
}

check unknown_key "colour" "agent: {template: noop}
tasks: [c2c/saxpy]
colour: blue"
check bad_selector "nosuch" "agent: {template: noop}
tasks: [c2c/nosuch]"
check unknown_agent "unknown agent" "agent: {template: gpt_wizard}
tasks: [c2c/saxpy]"
check command_without_argv "agent.command" "agent: {template: command}
tasks: [c2c/saxpy]"
check bad_repeats "repeats" "agent: {template: noop}
tasks: [c2c/saxpy]
repeats: 0"
check gpu_device_for_c_task "device" "agent: {template: noop}
tasks: [c2c/saxpy]
device: cuda:0"
# A relative path that does not exist says where it was looked for (the
# mount's daemon reads runs/new from /, not from the writer's directory).
check relative_aka_path "a relative path is taken from" "agent: {template: noop}
tasks: [aka:no/such/checkout]"
check relative_task_root "a relative path is taken from" "agent: {template: noop}
task_roots: {mine: no/such/tasks}
tasks: [c2c/saxpy]"
[ -z "$(ls -A "$STORE/runs" 2>/dev/null)" ] || fail "a run was created for an invalid config"
echo ok
