#!/bin/sh
# tests/e2e/serve_token.sh - `arena serve` beyond loopback: refused
# without --token-file, refused with a token file others may read or a
# short token; with a token, every endpoint but /v1/health answers 401
# without it or with a wrong one (and reads no body), and works with it.
# A Unix socket is created mode 0600 and serves the same API.
# test-timeout: 300
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"

"$ARENA" --store "$STORE" serve --listen 0.0.0.0:0 >"$T/nt.log" 2>&1 &
pid=$!
sleep 0.5
if grep -q "without libmicrohttpd" "$T/nt.log"; then echo "built without libmicrohttpd"; exit 77; fi
wait $pid; rc=$?
[ $rc -ne 0 ] || fail "arena serve started beyond loopback without a token"
grep -q -- "--token-file" "$T/nt.log" || fail "the refusal does not say what to do: $(cat "$T/nt.log")"

printf 'correct-horse-battery-staple-42\n' >"$T/token"
chmod 644 "$T/token"
"$ARENA" --store "$STORE" serve --listen 0.0.0.0:0 --token-file "$T/token" >"$T/wr.log" 2>&1 &
pid=$!; wait $pid; rc=$?
[ $rc -ne 0 ] || fail "a token file others may read was accepted"
grep -q "chmod 600" "$T/wr.log" || fail "no advice for the readable token file: $(cat "$T/wr.log")"
printf 'short\n' >"$T/short"; chmod 600 "$T/short"
"$ARENA" --store "$STORE" serve --listen 0.0.0.0:0 --token-file "$T/short" >"$T/sh.log" 2>&1 &
pid=$!; wait $pid; rc=$?
[ $rc -ne 0 ] || fail "a 5-character token was accepted"

chmod 600 "$T/token"
serve_start "$T/serve.log" --listen 0.0.0.0:0 --token-file "$T/token"
URL=$(echo "$SERVE_URL" | sed 's#//0.0.0.0:#//127.0.0.1:#')
py - "$URL" "$T/token" <<'PY' || fail "token enforcement (see above)"
import sys
from serve_client import Client, ServeError
url, token = sys.argv[1], open(sys.argv[2]).readline().strip()
ok = True
item = {"task": "c2c/saxpy", "sources": {"kernel.c": "not C"}}
for name, c in (("no token", Client(url)),
                ("wrong token", Client(url, "correct-horse-battery-staple-43")),
                ("prefix of it", Client(url, token[:-1]))):
    for method, path, body in (("POST", "/v1/batches", {"items": [item]}),
                               ("GET", "/v1/batches/b_0123456789abcdef", None),
                               ("GET", "/v1/batches/b_0123456789abcdef/events", None),
                               ("GET", "/v1/results/r_0123456789abcdef", None)):
        try:
            c.request(method, path, body)
            print("FAIL", name, method, path, "was served"); ok = False
        except ServeError as e:
            if e.status != 401:
                print("FAIL", name, method, path, e); ok = False
    if c.health()["ok"] is not True:
        ok = False
good = Client(url, token)
b = good.submit([item])
a = list(good.events(b["batch"]))
if len(a) != 1 or a[0]["result"]["status"] != "compile_error":
    print("FAIL with the token:", a); ok = False
print("token enforced" if ok else "token NOT enforced")
sys.exit(0 if ok else 1)
PY
serve_stop
[ "$SERVE_RC" = 0 ] || fail "SIGTERM: exit $SERVE_RC"

serve_start "$T/sock.log" --socket "$T/arena.sock"
[ "$(stat -c %a "$T/arena.sock")" = 600 ] || fail "the socket is mode $(stat -c %a "$T/arena.sock"), not 600"
py - "unix:$T/arena.sock" <<'PY' || fail "the API over the Unix socket"
import sys
from serve_client import Client
c = Client(sys.argv[1])
assert c.health()["ok"] is True
b = c.submit([{"task": "c2c/saxpy", "sources": {"kernel.c": "still not C"}}])
a = c.wait(b["batch"])
assert a["items"][0]["result"]["status"] == "compile_error", a
print("unix socket ok")
PY
serve_stop
[ "$SERVE_RC" = 0 ] || fail "SIGTERM: exit $SERVE_RC"
[ ! -e "$T/arena.sock" ] || fail "the socket was left behind"
echo "PASS serve_token"
