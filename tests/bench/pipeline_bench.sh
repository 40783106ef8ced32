#!/bin/sh
# tests/bench/pipeline_bench.sh - evaluations per hour of a stream of
# distinct honest candidates, one after another against pipelined (two in
# flight: one builds and checks correctness while the other holds the
# device lock for its timing; reference outputs shared), in alternating
# rounds of one run, with each mode's latency and A/A quality
# (tests/bench/pipeline_bench.c says more).  A benchmark, not a test.
# usage: B=build sh tests/bench/pipeline_bench.sh [ROUNDS [PER_TASK
#            [CASE_BUDGET_S [TASK...]]]]
# Defaults: 2 rounds of 2 candidates per task, the default timing budget
# (0), tasks c2c/saxpy c2c/dot c2c/rmsnorm_residual.
set -e
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ -f "$B/libarena.a" ] || { echo "build first: make" >&2; exit 1; }
out="$B/bench/pipeline_bench"
mkdir -p "$B/bench"
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -D_GNU_SOURCE -O2 -Iengine/include \
	$(pkg-config --cflags libcjson) -o "$out" tests/bench/pipeline_bench.c \
	"$B/libarena.a" $(pkg-config --libs libcjson yaml-0.1 sqlite3) \
	-lm -lpthread -ldl
rounds=${1:-2}
per=${2:-2}
budget=${3:-0}
if [ $# -gt 3 ]; then shift 3; else set --; fi
[ $# -gt 0 ] || set -- c2c/saxpy c2c/dot c2c/rmsnorm_residual
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD 2>/dev/null) $(uname -m) $(nproc) cores; tasks: $*"
case $B in /*) abs=$B ;; *) abs=$ROOT/$B ;; esac
ARENA_RUNNER=${ARENA_RUNNER:-$abs/arena-runner} \
	"$out" "$ROOT/tasks" "$rounds" "$per" "$budget" "$@"
