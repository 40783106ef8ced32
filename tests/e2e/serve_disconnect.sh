#!/bin/sh
# tests/e2e/serve_disconnect.sh - a client of `arena serve` that drops its
# event stream mid-batch loses nothing: the batch is evaluated on, and a
# later poll or stream gives every answer, each once.  And an answer of
# serve is `arena eval`'s: the honest candidate's full evaluation is in
# the store's evaluation cache, so `arena eval` on the same sources
# prints the very same numbers without evaluating again.
# test-timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

serve_start "$T/serve.log" --listen 127.0.0.1:0 --workers 1

py - "$SERVE_URL" "$ROOT" "$T/answer.json" <<'PY' || fail "the disconnected client's batch"
import json, socket, sys, urllib.parse
from serve_client import Client
url, root, out = sys.argv[1], sys.argv[2], sys.argv[3]
c = Client(url, timeout=600)
src = open(root + "/tasks/c2c/gemm/kernel.c").read()
b = c.submit([
    {"task": "c2c/gemm", "sources": {"kernel.c": src + "\n/* serve_disconnect */\n"}},
    {"task": "c2c/gemm", "sources": {"kernel.c": "broken A"}, "priority": 10},
    {"task": "c2c/gemm", "sources": {"kernel.c": "broken B"}, "priority": 10},
])
bid = b["batch"]
# Read the stream by hand up to the first answer, then vanish.
u = urllib.parse.urlsplit(url)
s = socket.create_connection((u.hostname, u.port))
s.sendall(("GET /v1/batches/%s/events HTTP/1.1\r\nHost: x\r\n\r\n" % bid).encode())
got = b""
while b"event: result" not in got:
    chunk = s.recv(4096)
    if not chunk:
        sys.exit("the stream ended before its first answer")
    got += chunk
s.close()
print("dropped the stream after its first answer")
b2 = c.wait(bid)
again = list(c.events(bid))
ok = b2["done"] == 3 and len(again) == 3 and \
     all(it["answers"] == 1 for it in b2["items"])
st = [it["result"]["status"] for it in b2["items"]]
print("states", [it["state"] for it in b2["items"]], "status", st)
ok = ok and st == ["ok", "compile_error", "compile_error"]
json.dump(b2["items"][0]["result"], open(out, "w"))
sys.exit(0 if ok else 1)
PY

# arena eval on the same sources: the cached result, same numbers.
mkdir -p "$T/ws"
cp "$ROOT/tasks/c2c/gemm/kernel.c" "$T/ws/kernel.c"
printf '\n/* serve_disconnect */\n' >>"$T/ws/kernel.c"
"$ARENA" --store "$STORE" eval c2c/gemm --workspace "$T/ws" >"$T/eval.yaml" 2>"$T/eval.err" ||
	fail "arena eval: $(cat "$T/eval.err")"
py - "$T/answer.json" "$T/eval.yaml" <<'PY' || fail "serve's answer is not arena eval's"
import json, re, sys
a = json.load(open(sys.argv[1]))
y = open(sys.argv[2]).read()
def field(k):
    m = re.search(r"^%s: *(\S+)" % k, y, re.M)
    return m.group(1).strip('"') if m else None
pairs = [("sources_hash", a.get("sources_hash")), ("status", a.get("status")),
         ("speedup_ratio", a.get("speedup_ratio"))]
ok = True
for k, v in pairs:
    e = field(k)
    if e is None or (k == "speedup_ratio" and abs(float(e) - float(v)) > 1e-9 * abs(float(v))) \
       or (k != "speedup_ratio" and e != str(v)):
        print("FAIL", k, "serve:", v, "arena eval:", e); ok = False
    else:
        print("same", k, v)
sys.exit(0 if ok else 1)
PY
serve_stop
[ "$SERVE_RC" = 0 ] || fail "SIGTERM: exit $SERVE_RC"
echo "PASS serve_disconnect"
