#!/bin/sh
# tests/gpu/python_tasks.sh - the Python-family tasks on a GPU, outside the
# evaluator, in one call of at most nine minutes: for every task of
# triton2triton, torch2triton, instruction2triton, torch2cuda and torch2hip
# (or the task directories given), tests/python/taskcheck.py runs the
# baseline (Triton or PyTorch in-process; CUDA/HIP built with nvcc, HIP
# through engine/include/arena/hip_nvidia) against the reference on every
# visible and held-out case with two input seeds (outputs poisoned, inputs
# checked unchanged, the task's tolerance; the evaluator's precision
# mutant of every float output put through the same comparison, which must
# fail it on some call), then times the baseline on the
# visible cases (CUDA events around one call after a 512 MiB L2 flush,
# median of 15).  Needs python3 with torch, triton and pyyaml, and nvcc;
# not the arena build (ARENA_PYTHON chooses the interpreter).
#
#   . .device/env.sh; OUT=$OUT sh tests/gpu/python_tasks.sh
#
# $OUT gets python_tasks.txt (one line per case: time, GB/s, TFLOP/s, the
# cost model's roofline at 3.4 TB/s and 800 TFLOP/s, the baseline's
# fraction of it, the largest error per output and the share of its
# tolerance used; a time under 20 us is marked; the failed tasks; on how
# many calls each output's precision mutant was caught; the last lines of
# the log) and python_tasks.tgz
# (taskcheck.txt, taskcheck.json and taskcheck.log, written under
# $OUT/w/python_tasks/ while it runs).  Exits non-zero when a task fails.
#
# usage: tests/gpu/python_tasks.sh [--deadline SECONDS] [TASKDIR...]
#   --deadline S  start no task after S seconds (default 420); the check is
#                 killed at 530 s whatever it is doing
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-$ROOT/build/gpu-results}
deadline=420
if [ "$1" = --deadline ]; then
	deadline=$2
	shift 2
fi
[ $# -gt 0 ] || set -- tasks/triton2triton tasks/torch2triton \
	tasks/instruction2triton tasks/torch2cuda tasks/torch2hip
W=$OUT/w/python_tasks
rm -rf "$W"
mkdir -p "$W"
: > "$W/taskcheck.log"
cd "$ROOT" || exit 1
PYTHONUNBUFFERED=1 timeout -k 10 530 "${ARENA_PYTHON:-python3}" tests/python/taskcheck.py \
	--device cuda --time --mutants --trials 2 --reps 15 --deadline "$deadline" \
	--out "$W" "$@" > "$W/stdout.log" 2>&1
rc=$?
{
	if [ -f "$W/taskcheck.txt" ]; then
		cat "$W/taskcheck.txt"
	else
		echo "no table: taskcheck.py ended with status $rc before writing it"
	fi
	[ $rc -eq 124 ] && echo "killed at the 530 s limit"
	echo "--- precision mutants"
	grep 'precision mutant' "$W/taskcheck.log"
	echo "--- last lines of the log"
	tail -n 15 "$W/taskcheck.log"
	[ $rc -eq 0 ] || { echo "--- last lines of its output"; tail -n 8 "$W/stdout.log"; }
	echo "python_tasks.sh: exit $rc"
} > "$OUT/python_tasks.txt"
tar -czf "$OUT/python_tasks.tgz" -C "$OUT/w" python_tasks && rm -rf "$W"
rmdir "$OUT/w" 2>/dev/null
exit $rc
