#!/bin/sh
# tests/bench/host_overhead.sh - two of the controller's per-call costs on
# the host against the code they replaced: the eviction of a runner's
# argument memory (with cold-read proof) and a timed pair's input draw
# (tests/bench/host_overhead.c).  A measurement, not a test.
# usage: B=build sh tests/bench/host_overhead.sh [MiB...]   (default 8 16 128)
set -e
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ -f "$B/libarena.a" ] || { echo "build first: make" >&2; exit 1; }
mkdir -p "$B/bench"
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -D_GNU_SOURCE -O2 -Iengine/include -Iengine/src/eval \
	$(pkg-config --cflags libcjson) -o "$B/bench/host_overhead" \
	tests/bench/host_overhead.c "$B/libarena.a" \
	$(pkg-config --libs libcjson yaml-0.1 sqlite3) -lm -lpthread -ldl
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD 2>/dev/null) $(uname -m) $(lscpu | sed -n 's/^Model name: *//p')"
[ $# -gt 0 ] || set -- 8 16 128
"$B/bench/host_overhead" "$@"
