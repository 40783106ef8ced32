#!/bin/sh
# tests/e2e/serve_idle.sh - an idle `arena serve` writes nothing: after a
# request has been answered, two workers polling an empty queue and the
# lease heartbeat (leases of 3 s: renewed every second while a worker
# holds a request) take sqlite's write lock not once in 10 s.
#
# The write lock of a WAL database is an fcntl lock on byte 120 of its
# -shm file (sqlite's os_unix.c: UNIX_SHM_BASE + WAL_WRITE_LOCK); strace
# counts the F_WRLCK requests on it.  A machine without strace, or where
# it may not attach, skips (77).  SERVE_IDLE_SECONDS changes the window.
# test-timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

command -v strace >/dev/null 2>&1 || { echo "strace is not installed"; exit 77; }
WINDOW=${SERVE_IDLE_SECONDS:-10}

serve_start "$T/serve.log" --listen 127.0.0.1:0 --workers 2 \
	--lease-seconds 3

# One request through, so the workers and the heartbeat have worked.
py - "$SERVE_URL" <<'PY' || fail "a request through the service"
import sys
from serve_client import Client
c = Client(sys.argv[1], timeout=120)
b = c.submit([{"task": "c2c/saxpy", "sources": {"kernel.c": "int broken = ;\n"}}])
r = c.wait(b["batch"])
assert r["items"][0]["state"] == "done", r
print("answered:", r["items"][0]["result"]["status"])
PY

timeout "$WINDOW" strace -f -qq -e trace=fcntl -p "$SERVE_PID" \
	-o "$T/trace" 2>"$T/strace.err"
if [ ! -s "$T/trace" ] || grep -q "ptrace" "$T/strace.err"; then
	cat "$T/strace.err"
	echo "strace could not attach to the service"
	exit 77
fi
writes=$(grep -c 'F_WRLCK, l_whence=SEEK_SET, l_start=120, l_len=1' "$T/trace")
reads=$(grep -c 'F_RDLCK' "$T/trace")
note "idle for ${WINDOW} s: $writes write locks, $reads read locks"
[ "$writes" = 0 ] || fail "an idle service took the write lock $writes times in ${WINDOW} s"

serve_stop
[ "$SERVE_RC" = 0 ] || fail "SIGTERM: exit $SERVE_RC"
echo "PASS serve_idle"
