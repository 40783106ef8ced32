#!/bin/sh
# tests/gpu/pipeline.sh - issue 17's throughput on a GPU, in at most six
# minutes: tests/bench/pipeline_bench.sh over small GPU tasks, one
# evaluation after another against two in flight (one builds and checks
# correctness while the other holds the device lock for its timing), in
# one run; prints evaluations per GPU-hour of each mode, their latency and
# A/A quality (every candidate is a task's own baseline with a distinct
# comment), and the ratio.  Needs a prebuilt build/ (make, with the GPU
# runner) and cc.
#
# usage: OUT=DIR sh tests/gpu/pipeline.sh [PER_TASK [TASK...]]
#   default: 3 candidates per task per mode over hip2hip/gelu
#   hip2hip/silu_f16 hip2hip/reduce_sum (18 evaluations), the default
#   timing budget; $PIPELINE_TIMEOUT seconds at most (default 340).
# Output: $OUT/pipeline.txt (the summary), $OUT/pipeline.tgz (the log).
. "$(dirname "$0")/lib.sh"
per=${1:-3}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- hip2hip/gelu hip2hip/silu_f16 hip2hip/reduce_sum
mkdir -p "$OUT/w"
log=$OUT/w/pipeline.log
echo "# pipeline.sh on $DEVICE, $(date -u +%FT%TZ)" > "$OUT/pipeline.txt"
rc=0
B=$B timeout "${PIPELINE_TIMEOUT:-340}" \
	sh "$ROOT/tests/bench/pipeline_bench.sh" 1 "$per" 0 "$@" > "$log" 2>&1 ||
	rc=$?
grep -v '^    ' "$log" | grep -E '^(20|round|serial|pipelined|throughput|  )' \
	>> "$OUT/pipeline.txt" || true
case $rc in
0) ;;
124) echo "pipeline_bench: over the time limit" >> "$OUT/pipeline.txt" ;;
*) echo "pipeline_bench exited $rc (see the lines above)" >> "$OUT/pipeline.txt" ;;
esac
tar -C "$OUT" -czf "$OUT/pipeline.tgz" w
cat "$OUT/pipeline.txt"
exit "$rc"
