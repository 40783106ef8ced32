#!/bin/sh
# tests/gpu/serve.sh - `arena serve` on one GPU (issue 17: goal >= 1,500
# full-quality evaluations per GPU-hour, >= 3x one after another), in at
# most six minutes: tests/bench/serve_bench.sh over small GPU tasks, in
# one run: `arena eval` one after another, then `arena serve --gpus 0
# --per-gpu 3` fed by 1, 2 and 4 concurrent clients.  Every candidate is
# a task's own baseline with a distinct comment (honest, uncached, an A/A
# pair: its speedups show the A/A quality).  Prints evaluations per
# GPU-hour of each mode, latency (median, p90), the A/A spread, and the
# ratio of the best serve mode to one after another.  Needs a prebuilt
# build/ (make, with the GPU runner) and python3.
#
# usage: OUT=DIR sh tests/gpu/serve.sh [PER_MODE [PER_GPU [TASK...]]]
#   default: 9 candidates per mode, 3 in flight, hip2hip/gelu
#   hip2hip/silu_f16 hip2hip/reduce_sum; $SERVE_TIMEOUT seconds at most
#   (default 340); $SERVE_CLIENTS the client counts (default 1,2,4);
#   SERVE_BENCH_SEQ=0 leaves out `arena eval` one after another.
# Output (2 files): $OUT/serve.txt (the summary), $OUT/serve.tgz (the
# bench's output and the service's log).
. "$(dirname "$0")/lib.sh"
per=${1:-9}
inflight=${2:-3}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- hip2hip/gelu hip2hip/silu_f16 hip2hip/reduce_sum
gpu=${DEVICE#*:}
work=$(mktemp -d "${TMPDIR:-/tmp}/arena-gpu-serve.XXXXXX")
mkdir -p "$work/w" "$work/store"
log=$work/w/serve_bench.log
echo "# serve.sh on $DEVICE, $(date -u +%FT%TZ), $per per mode, --per-gpu $inflight" >"$OUT/serve.txt"
rc=0
SERVE_BENCH_STORE=$work/store B=$B timeout "${SERVE_TIMEOUT:-340}" \
	sh "$ROOT/tests/bench/serve_bench.sh" "$per" "${SERVE_CLIENTS:-1,2,4}" \
	"--gpus $gpu --per-gpu $inflight" "$@" >"$log" 2>&1 || rc=$?
# evals/hour on one GPU are evaluations per GPU-hour.
sed 's#evals/hour#evals/GPU-hour#' "$log" >>"$OUT/serve.txt"
case $rc in
0) ;;
124) echo "serve_bench: over the time limit" >>"$OUT/serve.txt" ;;
*) echo "serve_bench exited $rc (see the lines above)" >>"$OUT/serve.txt" ;;
esac
cp "$work/store/serve.log" "$work/w/" 2>/dev/null || true
tar -C "$work" -czf "$OUT/serve.tgz" w
rm -rf "$work"
cat "$OUT/serve.txt"
exit "$rc"
