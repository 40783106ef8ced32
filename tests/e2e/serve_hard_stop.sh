#!/bin/sh
# tests/e2e/serve_hard_stop.sh - a second signal leaves no process of
# `arena serve` behind: a worker is stuck in an evaluation (its compiler
# hangs, with a child of its own in its process group), SIGTERM starts
# the drain, a second SIGTERM requeues the request, kills the workers'
# processes with their groups and reaps them: the service exits 0 within
# its bounded wait, nothing of its process groups runs on, the request is
# queued again, and no verdict of the cut-short evaluation was cached.
#
# The hung compiler is a `cc` first on PATH: for the candidate's source
# (it holds ARENA_TEST_HANG) it starts a sleep and waits for it - the
# sleep is the grandchild that only a group kill reaches (the
# parent-death signal kills the compiler alone); for everything else
# (--version, the reference, the baseline) it runs the real one.  Killed,
# it would make a compile_error verdict of the candidate that the
# evaluation cache keeps, unless the store is fenced first.
# test-timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

REAL_CC=$(command -v cc) || { echo "no C compiler"; exit 77; }
MARK="3000.$$"	# the sleep's argument: names this test's processes
mkdir -p "$T/bin"
cat >"$T/bin/cc" <<EOF
#!/bin/sh
for a; do
	case "\$a" in *.c) grep -q ARENA_TEST_HANG "\$a" 2>/dev/null && hang=1 ;; esac
done
[ -n "\${hang:-}" ] || exec "$REAL_CC" "\$@"
sleep $MARK &
wait
EOF
chmod +x "$T/bin/cc"

# The pids of the sleeps this test started, if any run.
marked() {
	ps -eo pid=,args= | awk -v m="sleep $MARK" '$2 " " $3 == m { print $1 }'
}
cleanup_marked() {
	for p in $(marked); do kill -KILL "$p" 2>/dev/null; done
}
trap 'cleanup_marked; serve_cleanup' EXIT

PATH="$T/bin:$PATH" serve_start "$T/serve.log" --listen 127.0.0.1:0 \
	--workers 1

py - "$SERVE_URL" "$T/batch" <<'PY' || fail "submitting the request"
import sys
from serve_client import Client
c = Client(sys.argv[1])
b = c.submit([{"task": "c2c/saxpy", "sources": {"kernel.c": "/* ARENA_TEST_HANG */\n"}}])
open(sys.argv[2], "w").write(b["batch"])
PY

# Wait for the hung compiler's child: the worker is inside the evaluation.
i=0
while [ -z "$(marked)" ]; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "the compiler never started: $(cat "$T/serve.log")"
	sleep 0.1
done
pgids=$(ps -o pgid= --ppid "$SERVE_PID" | tr -d ' ' | sort -u)
[ -n "$pgids" ] || fail "the service has no child process while it evaluates"
note "the service's children lead process groups: $(echo $pgids)"

kill -TERM "$SERVE_PID"
sleep 1
kill -0 "$SERVE_PID" 2>/dev/null || fail "the drain did not wait for the evaluation in hand"
start=$(date +%s)
kill -TERM "$SERVE_PID"
wait "$SERVE_PID"
rc=$?
took=$(($(date +%s) - start))
SERVE_PID=""
cat "$T/serve.log"
[ "$rc" = 0 ] || fail "the second SIGTERM: exit $rc, not 0"
[ "$took" -le 10 ] || fail "the hard stop took $took s"

left=$(for g in $pgids; do
	ps -eo pid=,pgid= | awk -v g="$g" '$2 == g { print $1 }'
done; marked)
left=$(echo $left)
[ -z "$left" ] || fail "processes of the service remain: $(ps -o pid,pgid,args -p "$(echo "$left" | tr ' ' ,)")"

py - "$STORE/arena.db" <<'PY' || fail "the store after the hard stop"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
states = db.execute("select state, answers from serve_requests").fetchall()
cached = db.execute("select count(*) from evaluations").fetchone()[0]
print("requests:", states, "cached verdicts:", cached)
assert states == [("queued", 0)], states
assert cached == 0, "a verdict of the killed evaluation was cached"
PY
echo "PASS serve_hard_stop"
