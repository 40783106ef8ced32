# tests/e2e/serve_lib.sh - helpers for the tests of `arena serve` (sourced
# after lib.sh).  serve_start starts a service in the background on a free
# loopback port and sets SERVE_PID and SERVE_URL; py runs Python with
# docs/serve_client.py importable (the documented client is what the
# tests drive).  A build without libmicrohttpd skips (77).

SERVE_PID=""
SERVE_URL=""

serve_start() {	# log file, then arena serve options
	_log=$1; shift
	: >"$_log"
	"$ARENA" --store "$STORE" serve "$@" >"$_log" 2>&1 &
	SERVE_PID=$!
	_i=0
	while [ $_i -lt 300 ]; do
		SERVE_URL=$(sed -n 's/^arena serve: listening on \([^ ]*\) .*/\1/p' "$_log")
		[ -n "$SERVE_URL" ] && return 0
		if ! kill -0 "$SERVE_PID" 2>/dev/null; then
			if grep -q "without libmicrohttpd" "$_log"; then
				cat "$_log"
				echo "arena was built without libmicrohttpd"
				exit 77
			fi
			cat "$_log"
			fail "arena serve did not start"
		fi
		sleep 0.1; _i=$((_i + 1))
	done
	cat "$_log"
	fail "arena serve did not say where it listens within 30 s"
}

# Sends SIGTERM and waits for the exit; SERVE_RC gets its status.
serve_stop() {
	kill -TERM "$SERVE_PID" 2>/dev/null
	wait "$SERVE_PID"
	SERVE_RC=$?
	SERVE_PID=""
}

# Kills the service at exit if a test failed half-way.
serve_cleanup() {
	[ -n "$SERVE_PID" ] && kill -KILL "$SERVE_PID" 2>/dev/null
	rm -rf "$T"
}
trap serve_cleanup EXIT

py() {
	PYTHONPATH="$ROOT/docs" python3 "$@"
}

command -v python3 >/dev/null 2>&1 || { echo "python3 is not installed"; exit 77; }
