#!/bin/sh
# tests/e2e/serve_api.sh - `arena serve` answers bad requests with a clear
# JSON error naming the field at fault (400), refuses bodies over its cap
# (413), a batch that would overfill its queue (429 with Retry-After),
# unknown endpoints (404) and wrong methods (405) - and keeps serving: a
# valid request sent after all of them is evaluated and answered.
# test-timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

serve_start "$T/serve.log" --listen 127.0.0.1:0 --workers 1 \
	--max-queue 3 --max-body-mb 1

py - "$SERVE_URL" "$ROOT" <<'PY' || fail "the API's answers (see above)"
import json, sys
from serve_client import Client, ServeError
url, root = sys.argv[1], sys.argv[2]
c = Client(url)
src = open(root + "/tasks/c2c/saxpy/kernel.c").read()
ok = True

def expect(status, field, words, body, path="/v1/batches", method="POST"):
    global ok
    try:
        c.request(method, path, body)
    except ServeError as e:
        if e.status == status and (field is None or e.field == field) and \
           all(w in e.message for w in words):
            print("ok   %d %s: %s" % (e.status, e.field, e.message))
            return e
        print("FAIL got %d %s: %s; wanted %d %s %s" %
              (e.status, e.field, e.message, status, field, words))
        ok = False
        return e
    print("FAIL %s %s was accepted; wanted %d %s" % (method, path, status, field))
    ok = False

item = lambda **kw: dict({"task": "c2c/saxpy", "sources": {"kernel.c": src}}, **kw)
expect(400, "", ["not valid JSON"], b"{\"items\": [")
expect(400, "", ["empty"], b"")
expect(400, "", ["JSON object"], b"[1, 2]")
expect(400, "", ["\\u0000"], b'{"items": [{"task": "c2c/saxpy", "sources": {"kernel.c": "a\\u0000b"}}]}')
expect(400, "items", ["missing"], {"client_key": "x"})
expect(400, "bogus", ["unknown"], {"items": [item()], "bogus": 1})
expect(400, "items", ["1 to 1000"], {"items": []})
expect(400, "items", ["1 to 1000"], {"items": [item(sources={"kernel.c": "x"})] * 1001})
expect(400, "items[0]", ["object"], {"items": ["c2c/saxpy"]})
expect(400, "items[1].task", ["missing"], {"items": [item(), {"sources": {"kernel.c": src}}]})
expect(400, "items[0].task", ["no task"], {"items": [item(task="c2c/no_such_task")]})
expect(400, "items[0].task", ["not a task id"], {"items": [item(task="../etc")]})
expect(400, "items[0].sources", ["missing"], {"items": [{"task": "c2c/saxpy"}]})
expect(400, "items[0].sources", ["object"], {"items": [item(sources="int x;")]})
expect(400, "items[0].sources", ["empty"], {"items": [item(sources={})]})
expect(400, "items[0].sources.other.c", ["no editable file", "kernel.c"],
       {"items": [item(sources={"kernel.c": src, "other.c": "x"})]})
expect(400, "items[0].sources.../kernel.c", ["not a file name"],
       {"items": [item(sources={"../kernel.c": src})]})
expect(400, "items[0].sources.kernel.c", ["string"], {"items": [item(sources={"kernel.c": 7})]})
expect(400, "items[0].priority", ["integer"], {"items": [item(priority=1.5)]})
expect(400, "items[0].priority", ["integer"], {"items": [item(priority=1e300)]})
expect(400, "items[0].quick", ["true or false"], {"items": [item(quick="yes")]})
expect(400, "items[0].speed", ["unknown key"], {"items": [item(speed=2)]})
expect(400, "client_key", ["characters"], {"items": [item()], "client_key": "a b"})
e = expect(413, None, ["bytes"], {"items": [item(sources={"kernel.c": "x" * (2 << 20)})]})
e = expect(429, None, ["queue is full"], {"items": [item()] * 4})
if e and e.retry_after is None:
    print("FAIL 429 without Retry-After"); ok = False
expect(404, None, ["no such endpoint"], None, "/v2/batches", "GET")
expect(404, "batch", ["not a batch id"], None, "/v1/batches/b_zz", "GET")
expect(404, "batch", ["no batch"], None, "/v1/batches/b_0123456789abcdef", "GET")
expect(404, "id", ["no request"], None, "/v1/results/r_0123456789abcdef", "GET")
expect(404, "batch", ["no batch"], None, "/v1/batches/b_0123456789abcdef/events", "GET")
expect(405, None, ["POST"], None, "/v1/batches", "GET")
expect(405, None, ["GET"], {"x": 1}, "/v1/results/r_0123456789abcdef", "POST")

# Still serving: a candidate that does not compile is evaluated and
# answered (compile_error), as `arena eval` would.
b = c.submit([item(sources={"kernel.c": "this is not C"})])
if len(b["ids"]) != 1 or b["existing"]:
    print("FAIL receipt", b); ok = False
answers = list(c.events(b["batch"]))
if len(answers) != 1 or answers[0]["result"]["status"] != "compile_error" \
   or answers[0]["answers"] != 1:
    print("FAIL answer", answers); ok = False
else:
    print("ok   still serving: compile_error answered once")
# The same client key again: the first batch, nothing added.
b1 = c.submit([item(sources={"kernel.c": "not C either"})], client_key="k-1")
b2 = c.submit([item(sources={"kernel.c": "not C either"})], client_key="k-1")
if b2["batch"] != b1["batch"] or not b2["existing"] or b2["ids"] != b1["ids"]:
    print("FAIL client key", b1, b2); ok = False
h = c.health()
if not h["ok"] or h["workers"] != 1:
    print("FAIL health", h); ok = False
sys.exit(0 if ok else 1)
PY

serve_stop
[ "$SERVE_RC" = 0 ] || fail "arena serve did not exit 0 on SIGTERM"
grep -q "drained" "$T/serve.log" || fail "no drain message: $(cat "$T/serve.log")"
echo "PASS serve_api"
