#!/bin/sh
# tests/e2e/serve_restart.sh - the queue of `arena serve` lives in the
# store: 1,000 queued requests, SIGTERM part-way (exit 0, nothing running
# left behind, the rest still queued), a restart, SIGKILL part-way (the
# dead process's requests go back to the queue at the next start), a
# last start: every request is answered exactly once (answers = 1, one
# result each, through the API and in the store).
#
# The candidates are 200 distinct sources that do not compile, each sent
# five times: real evaluations (a compile_error verdict, as `arena eval`
# gives) that are quick enough for 1,000 of them in CI; twins of one
# source share one evaluation.
# test-timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

serve_start "$T/serve1.log" --listen 127.0.0.1:0 --workers 2

py - "$SERVE_URL" "$T/batches" <<'PY' || fail "submitting 1,000 requests"
import json, random, sys
from serve_client import Client
c = Client(sys.argv[1])
items = [{"task": "c2c/saxpy",
          "sources": {"kernel.c": "int broken_%d = ;\n" % (i % 200)}}
         for i in range(1000)]
random.Random(7).shuffle(items)
ids = []
for k in range(2):
    b = c.submit(items[500 * k:500 * (k + 1)])
    assert len(b["ids"]) == 500, b
    ids.append(b["batch"])
open(sys.argv[2], "w").write(" ".join(ids))
print("submitted", ids)
PY

# Answered counts every answer of this process, twins included.
wait_answered() {	# at least N answered, or fail
	py - "$SERVE_URL" "$1" <<'PY' || fail "the service answered nothing"
import sys, time
from serve_client import Client
c = Client(sys.argv[1]); n = int(sys.argv[2])
for _ in range(600):
    h = c.health()
    if h["answered"] >= n:
        print("health", h); sys.exit(0)
    time.sleep(0.1)
sys.exit(1)
PY
}

state_counts() {	# prints "queued running done answers_not_1"
	py - "$STORE/arena.db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = lambda sql: db.execute(sql).fetchone()[0]
print(q("select count(*) from serve_requests where state='queued'"),
      q("select count(*) from serve_requests where state='running'"),
      q("select count(*) from serve_requests where state='done'"),
      q("select count(*) from serve_requests where state='done' and answers != 1"))
PY
}

wait_answered 10
serve_stop
[ "$SERVE_RC" = 0 ] || fail "SIGTERM: exit $SERVE_RC, not 0: $(cat "$T/serve1.log")"
set -- $(state_counts)
note "after SIGTERM: queued=$1 running=$2 done=$3"
[ "$2" = 0 ] || fail "SIGTERM left $2 requests running"
[ "$1" -gt 0 ] || fail "nothing was left queued: the test proves nothing about a restart"
[ "$4" = 0 ] || fail "$4 requests were answered more than once"

serve_start "$T/serve2.log" --listen 127.0.0.1:0 --workers 2
wait_answered 10
kill -KILL "$SERVE_PID"; wait "$SERVE_PID" 2>/dev/null; SERVE_PID=""
set -- $(state_counts)
note "after SIGKILL: queued=$1 running=$2 done=$3"
[ "$4" = 0 ] || fail "$4 requests were answered more than once"

serve_start "$T/serve3.log" --listen 127.0.0.1:0 --workers 2
py - "$SERVE_URL" $(cat "$T/batches") <<'PY' || fail "the answers after the restarts"
import sys
from serve_client import Client
c = Client(sys.argv[1], timeout=300)
seen, bad = set(), 0
for bid in sys.argv[2:]:
    b = c.wait(bid)
    streamed = list(c.events(bid))
    if len(streamed) != 500 or len({a["id"] for a in streamed}) != 500:
        print("FAIL the event stream gave", len(streamed), "answers"); bad += 1
    for it in b["items"]:
        seen.add(it["id"])
        r = it["result"] or {}
        if it["state"] != "done" or it["answers"] != 1 or \
           r.get("status") != "compile_error":
            print("FAIL", it["id"], it["state"], it["answers"], r.get("status"),
                  it["error"]); bad += 1
print(len(seen), "requests answered,", bad, "wrong")
sys.exit(0 if len(seen) == 1000 and bad == 0 else 1)
PY
set -- $(state_counts)
note "at the end: queued=$1 running=$2 done=$3 answers!=1: $4"
[ "$3" = 1000 ] && [ "$4" = 0 ] || fail "not every request answered exactly once"
serve_stop
[ "$SERVE_RC" = 0 ] || fail "SIGTERM: exit $SERVE_RC"
echo "PASS serve_restart"
