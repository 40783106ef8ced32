#!/bin/sh
# tests/gpu/python_tasks.sh - the Python-family tasks on a GPU, outside the
# evaluator, in one call of a few minutes: for every task of triton2triton,
# torch2triton, instruction2triton, torch2cuda and torch2hip (or the task
# directories given), tests/python/taskcheck.py runs the baseline (Triton
# or PyTorch in-process; CUDA/HIP built with nvcc, HIP through
# engine/include/arena/hip_nvidia) against the reference on every visible
# and held-out case with two input seeds (outputs poisoned, inputs checked
# unchanged, the task's tolerance), then times the baseline on the visible
# cases (CUDA events around one call after a 512 MiB L2 flush, median of
# 15).  Needs python3 with torch, triton and pyyaml, and nvcc; not the
# arena build.
#
# Writes $OUT/taskcheck.txt (one line per case: time, GB/s, TFLOP/s, the
# cost model's roofline at 3.4 TB/s and 800 TFLOP/s, the baseline's
# fraction of it, the largest error per output; a time under 20 us is
# marked), $OUT/taskcheck.json and $OUT/taskcheck.log.  Exits non-zero when
# a task fails.
#
# usage: tests/gpu/python_tasks.sh [--deadline SECONDS] [TASKDIR...]
#   --deadline S  start no task after S seconds (default 480)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/build/gpu-results}
deadline=480
if [ "$1" = --deadline ]; then
	deadline=$2
	shift 2
fi
[ $# -gt 0 ] || set -- tasks/triton2triton tasks/torch2triton \
	tasks/instruction2triton tasks/torch2cuda tasks/torch2hip
mkdir -p "$OUT"
: > "$OUT/taskcheck.log"
cd "$ROOT" || exit 1
PYTHONUNBUFFERED=1 exec python3 tests/python/taskcheck.py --device cuda --time \
	--trials 2 --reps 15 --deadline "$deadline" --out "$OUT" "$@"
