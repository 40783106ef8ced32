# tests/e2e/agents_lib.sh - what the real-CLI tests share (sourced after
# lib.sh): finding an agent CLI (or skipping), and starting a scripted
# model server from tests/agents/ and waiting for its port.

# real_cli NAME ENV_VAR: the path of the NAME CLI in $cli - $ENV_VAR, the
# PATH, or scripts/install-agents.sh's prefixes - with its version noted;
# skips (exit 77) when node or the CLI is missing or does not run.
real_cli() {
	cli=""
	eval "over=\${$2:-}"
	for c in "$over" "$(command -v "$1" 2>/dev/null)" \
		/opt/arena-agents/node_modules/.bin/"$1" \
		"$HOME/.local/share/arena/agents/node_modules/.bin/$1"; do
		[ -n "$c" ] && [ -x "$c" ] && { cli=$c; break; }
	done
	command -v node >/dev/null 2>&1 || { echo "skip: node is not installed"; exit 77; }
	[ -n "$cli" ] || { echo "skip: the $1 CLI is not installed (scripts/install-agents.sh)"; exit 77; }
	"$cli" --version > "$T/version" 2>&1 || { cat "$T/version"; echo "skip: $cli --version fails"; exit 77; }
	note "$1 $(cat "$T/version")"
}

# start_mock SCRIPT NAME MAX_REQUESTS [FLAG...]: tests/agents/SCRIPT in the
# background (pid in $mock, log $T/NAME.mock.log), its port in $T/port.
start_mock() {
	_script=$1 _log=$T/$2.mock.log _max=$3
	shift 3
	rm -f "$T/port"
	node "$ROOT/tests/agents/$_script" "$T/port" "$_log" "$@" \
		--lifetime 240 --max-requests "$_max" &
	mock=$!
	i=0; while [ ! -s "$T/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	[ -s "$T/port" ] || fail "mock server did not start"
}
