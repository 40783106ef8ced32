#!/bin/sh
# tests/bench/serve_bench.sh - `arena serve`'s throughput (issue 17):
# full-quality evaluations per hour over a stream of distinct honest
# candidates (each a task's baseline with a distinct comment: an A/A
# pair), `arena eval` one after another against serve with 1, 2 and 4
# concurrent clients, in one run, with each mode's latency (median, p90)
# and the spread of its A/A speedups (tests/bench/serve_bench.py).  A
# benchmark, not a test; results go to docs/benchmarks.md.
#
# usage: B=build sh tests/bench/serve_bench.sh [PER_MODE [CLIENTS [SERVE_ARGS [TASK...]]]]
#   defaults: 6 candidates per mode, clients 1,2,4, serve --workers 2,
#   tasks c2c/saxpy c2c/dot c2c/rmsnorm_residual.  The store is fresh
#   ($SERVE_BENCH_STORE, default a temporary directory, removed after).
set -e
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
case $B in /*) abs=$B ;; *) abs=$ROOT/$B ;; esac
[ -x "$abs/arena" ] || { echo "build first: make" >&2; exit 1; }
per=${1:-6}
clients=${2:-1,2,4}
args=${3:---workers 2}
if [ $# -gt 3 ]; then shift 3; else set --; fi
[ $# -gt 0 ] || set -- c2c/saxpy c2c/dot c2c/rmsnorm_residual
store=${SERVE_BENCH_STORE:-$(mktemp -d /tmp/arena-serve-bench.XXXXXX)}
mkdir -p "$store"
[ -n "${SERVE_BENCH_STORE:-}" ] || trap 'rm -rf "$store"' EXIT
python3 "$ROOT/tests/bench/serve_bench.py" "$abs/arena" "$store" "$per" \
	"$clients" "$args" "$@"
