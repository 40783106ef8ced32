#!/bin/sh
# tests/gpu/probe_ipc.sh - the device-side compare's step 0 (docs/gpu.md,
# "What would cut a pair's cost"; issue 17): runs tests/gpu/probe_ipc.cu
# with its child confined as arena confines a GPU runner (the namespaces
# and allow-list root of arena/confine.h, through tests/helpers/confine_run.c),
# then once more under bwrap or unconfined for comparison.  Writes
# $OUT/probe_ipc.txt.
#
# Build here (the GPU machine lacks the libraries' link files), after
# `make`:
#   BUILD_ONLY=1 sh tests/gpu/probe_ipc.sh
# then carry build/probe_ipc and build/tests/helpers/confine_run and, there:
#   . .device/env.sh; OUT=$OUT sh tests/gpu/probe_ipc.sh [MIB [SETS]]
. "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
if [ -n "${BUILD_ONLY:-}" ]; then
	NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
	rel=${B#"$ROOT"/}
	make B="$rel" "$rel/tests/helpers/confine_run" || exit 1
	"$NVCC" -O2 -arch=sm_90 -o "$B/probe_ipc" tests/gpu/probe_ipc.cu \
		-lcuda -L/usr/local/cuda/lib64/stubs || exit 1
	echo "built $B/tests/helpers/confine_run and $B/probe_ipc"
	exit 0
fi
for f in tests/helpers/confine_run probe_ipc; do
	[ -x "$B/$f" ] || { echo "no $B/$f: BUILD_ONLY=1 sh $0 first" >&2; exit 1; }
done
TABLE=$OUT/probe_ipc.txt
: > "$TABLE"
say "# probe_ipc on $DEVICE, commit ${ARENA_COMMIT:-?}, $(date -u +%FT%TZ)"
say "## the child confined as a GPU runner is"
log=$(mktemp)
PROBE_CONFINE=$B/tests/helpers/confine_run "$B/probe_ipc" "$@" > "$log" 2>&1
rc=$?
tee -a "$TABLE" < "$log"
say "## for comparison: bwrap when on PATH, else unconfined"
"$B/probe_ipc" "$@" > "$log" 2>&1
tee -a "$TABLE" < "$log"
rm -f "$log"
exit $rc
