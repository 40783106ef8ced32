#!/bin/sh
# tests/bench/excess_null.sh - how often the GPU charged excess charges an
# A/A, and how much (tests/bench/excess_null.c says what it draws and
# prints).  A measurement, not a test; the table goes to docs/gpu.md.
# usage: B=build sh tests/bench/excess_null.sh
set -e
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ -f "$B/libarena.a" ] || { echo "build first: make" >&2; exit 1; }
out="$B/bench/excess_null"
mkdir -p "$B/bench"
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -D_GNU_SOURCE -O2 -Iengine/include -Iengine/src/eval \
	$(pkg-config --cflags libcjson) -o "$out" tests/bench/excess_null.c \
	"$B/libarena.a" $(pkg-config --libs libcjson yaml-0.1 sqlite3) \
	-lm -lpthread -ldl
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD 2>/dev/null) $(uname -m)"
"$out"
