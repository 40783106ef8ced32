#!/bin/sh
# tests/e2e/serve_gpus.sh - `arena serve --gpus 0,1 --per-gpu 2` on two
# emulated GPUs (the fake GPU runner): four workers, every request of a
# batch of distinct candidates answered once, both devices used, and a
# GPU task's result names the device it ran on.
# test-timeout: 600
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/serve_lib.sh"
FAKE=$ROOT/$B/tests/arena-runner-fakegpu
[ -x "$FAKE" ] || { echo "skip: $FAKE is not built"; exit 77; }
export ARENA_RUNNER_CUDA=$FAKE NVCC=$ROOT/tests/gpu/fake/nvcc
export ARENA_TASKS_DIR=$ROOT/tests/gpu/fake CUDA_VISIBLE_DEVICES=0,1 ARENA_DEVICE=cuda:0

serve_start "$T/serve.log" --listen 127.0.0.1:0 --gpus 0,1 --per-gpu 2
grep -q "(4 GPU workers" "$T/serve.log" || fail "not 4 workers: $(cat "$T/serve.log")"
py - "$SERVE_URL" "$ROOT" <<'PY' || fail "the GPU batch (see above)"
import sys
from serve_client import Client
c = Client(sys.argv[1], timeout=600)
src = open(sys.argv[2] + "/tests/gpu/fake/task/fakepoly/kernel.cu").read()
b = c.submit([{"task": "task/fakepoly", "quick": True,
               "sources": {"kernel.cu": src + "\n/* %d */\n" % i}}
              for i in range(6)])
done = c.wait(b["batch"])
devs, ok = set(), True
for it in done["items"]:
    r = it["result"] or {}
    dev = (r.get("runtime") or {}).get("device")
    devs.add(str(dev))
    print(it["id"], it["answers"], r.get("status"), dev, it["error"])
    ok = ok and it["answers"] == 1 and r.get("status") in ("ok", "rejected")
print("devices", sorted(devs))
sys.exit(0 if ok and len([d for d in devs if d.startswith("cuda:")]) == 2 else 1)
PY
serve_stop
[ "$SERVE_RC" = 0 ] || fail "SIGTERM: exit $SERVE_RC"
echo "PASS serve_gpus"
