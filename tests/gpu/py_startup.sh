#!/bin/sh
# tests/gpu/py_startup.sh - where a Python task's evaluation spends its
# runner_start and correctness seconds on a GPU (issue 12, item 3): NQUICK
# quick `arena eval`s and one default one of an edited copy of TASK, each
# with --logs, then per evaluation its eval_phases, each runner's launch
# -> ready gap (timing.tsv marks), each Python runner's preparation steps
# and its first launch (Triton's JIT), from the runners' logs.
#
# usage: OUT=DIR sh tests/gpu/py_startup.sh [TASK [NQUICK]]
#   default: triton2triton/rmsnorm_bf16, 2 quick evaluations; any task
#   (a CUDA or HIP one's phases too: hip2hip/gelu 0 is one default eval)
# Writes $OUT/py_startup.txt (the summary) and $OUT/py_startup.tgz (the
# evaluations' logs).  Each `arena eval` is its own process, so each one
# also starts the runners' zygote (import torch, triton) while it builds.
. "$(dirname "$0")/lib.sh"
task=${1:-triton2triton/rmsnorm_bf16}
nquick=${2:-2}
work=$(mktemp -d "${TMPDIR:-/tmp}/arena-py-startup.XXXXXX")
sum=$OUT/py_startup.txt
: >"$sum"
cp -r "${ARENA_TASKS_DIR:-$ROOT/tasks}/$task" "$work/ws"
main=$(ls "$work/ws"/kernel.* | head -n 1)
# A comment in the kernel's own language, unique to this call: the store
# caches results by content, and a second call with the same edit (or
# another switch, say ARENA_ASYNC_REFCHECK=0) would only read the first's.
case $main in
*.py) comment="#" ;;
*) comment="//" ;;
esac
stamp="$(date +%s).$$"
echo "# py_startup.sh on $DEVICE, $task, $(date -u +%FT%TZ)" >>"$sum"

# Threads after each import, as a zygote would see them, without and with
# the runner's one-thread pools (arena_runner_py.py CPU_POOLS): a zygote
# with more than one thread is not copied.
for pools in "" "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1"; do
	# shellcheck disable=SC2086 # one word per variable
	env -i PATH=/usr/bin:/bin $pools "${ARENA_PYTHON:-python3}" -c '
import os, sys
def n(): return len(os.listdir("/proc/self/task"))
out = ["start %d" % n()]
for m in ("numpy", "torch", "triton"):
    try:
        __import__(m)
        out.append("%s %d" % (m, n()))
    except Exception as e:
        out.append("%s: %s" % (m, type(e).__name__))
print("threads after import (%s): %s" % (sys.argv[1] or "no limits", ", ".join(out)))
' "$pools" >>"$sum" 2>&1
done

one() { # NAME [eval options...]
	name=$1
	shift
	echo "$comment edit $name $stamp" >>"$main"
	t0=$(now)
	timeout 200 "$ARENA" --store "$STORE" eval "$task" --workspace "$work/ws" \
		--logs "$work/logs/$name" "$@" \
		>"$work/$name.yaml" 2>&1
	echo "## $name: exit $?, $(elapsed "$t0") s wall, status $(field status <"$work/$name.yaml")" >>"$sum"
	grep '^eval_phases:' "$work/$name.yaml" | sed 's/^/  /' >>"$sum"
	grep -q '^status:' "$work/$name.yaml" || tail -n 3 "$work/$name.yaml" >>"$sum"
	grep -h 'runner [0-9]* \(launched\|ready\)\|runners ready\|case .* checked\|^# .*timing$\|built' \
		"$work/logs/$name/timing.tsv" 2>/dev/null | sed 's/^/  /' >>"$sum"
	for f in "$work/logs/$name"/runner-*.log; do
		[ -f "$f" ] || continue
		grep -h 'arena-runner-[a-z]*:' "$f" |
			sed "s#^#  $(basename "$f" .log): #" >>"$sum"
	done
}

i=1
while [ "$i" -le "$nquick" ]; do
	one "quick$i" --quick
	i=$((i + 1))
done
one default
tar -C "$work" -czf "$OUT/py_startup.tgz" logs
rm -rf "$work"
cat "$sum"
