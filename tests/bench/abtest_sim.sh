#!/bin/sh
# tests/bench/abtest_sim.sh - docs/statistics.md §11's simulation table:
# builds tests/bench/abtest_sim.c against $B/libarena.a (run `make` first)
# and runs it with N comparisons per scenario (default 2000; about 10
# CPU-minutes).  usage: B=build sh tests/bench/abtest_sim.sh [N]
set -e
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ -f "$B/libarena.a" ] || { echo "build first: make" >&2; exit 1; }
out="$B/bench/abtest_sim"
mkdir -p "$B/bench"
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -D_GNU_SOURCE -O2 -Iengine/include \
	$(pkg-config --cflags libcjson) -o "$out" tests/bench/abtest_sim.c \
	"$B/libarena.a" $(pkg-config --libs libcjson yaml-0.1 sqlite3) \
	-lcmocka -lm -lpthread -ldl
date -u +"%Y-%m-%dT%H:%M:%SZ $(git rev-parse --short HEAD 2>/dev/null) $(uname -m)"
"$out" "${1:-2000}"
