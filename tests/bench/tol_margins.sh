#!/bin/sh
# tests/bench/tol_margins.sh - how much of their tolerance honest float32
# kernels use, and how much of the precision mutant it catches, on the
# tasks whose tolerances issue 14 tightened: the controller's inputs, the
# tasks' own references, C emulations of the baselines and of other honest
# accumulation orders (tests/bench/tol_margins.c says which and what it
# cannot show).  A measurement, not a test; the table goes to docs/tasks.md.
# usage: B=build sh tests/bench/tol_margins.sh [SEEDS]   (default 2)
set -e
B=${B:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ -f "$B/libarena.a" ] || { echo "build first: make" >&2; exit 1; }
out="$B/bench/tol_margins"
refs="$B/bench/tol_margins_refs"
mkdir -p "$refs"
for t in hip2hip/layernorm_fwd_bf16 instruction2hip/merge_attn_states \
	instruction2hip/rmsnorm_bwd_bf16 hip2hip/group_norm_silu_f16 \
	hip2hip/silu_f16; do
	cc -std=c11 -O2 -shared -fPIC -Iengine/include \
		-o "$refs/$(echo "$t" | tr / _).so" "tasks/$t/reference.c" -lm
done
# -ffp-contract=off: the emulations say where a GPU compiler fuses (fmaf).
# shellcheck disable=SC2046 # pkg-config prints several words
cc -std=c11 -D_GNU_SOURCE -O2 -ffp-contract=off -Iengine/include \
	-Iengine/src/eval $(pkg-config --cflags libcjson) -o "$out" \
	tests/bench/tol_margins.c "$B/libarena.a" \
	$(pkg-config --libs libcjson yaml-0.1 sqlite3) -lm -lpthread -ldl
echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) $(git rev-parse --short HEAD 2>/dev/null) $(uname -m)"
"$out" "$ROOT/tasks" "$refs" "${1:-2}"
