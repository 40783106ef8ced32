#!/bin/sh
# tests/e2e/python_tasks_cpu.sh - every Python-family task (triton2triton,
# torch2triton, instruction2triton, torch2cuda, torch2hip)
# loads, and its baseline matches its reference on small cases on the CPU:
# Triton kernels through tests/python/triton_emu.py, CUDA/HIP kernels
# through tests/python/cuda_emu/ (g++), PyTorch baselines as they are
# (tests/python/taskcheck.py --device cpu --emulate --small).  The GPU
# check of the same tasks at their real sizes is tests/gpu/python_tasks.sh.
# Skipped (77) without python3's torch and yaml or g++.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=${ARENA_PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
if ! "$PY" -c 'import torch, yaml' 2>/dev/null || ! command -v g++ >/dev/null; then
	echo "skip: needs python3 with torch and yaml, and g++"
	exit 77
fi
out=$(mktemp -d "${TMPDIR:-/tmp}/pytasks-XXXXXX")
trap 'rm -rf "$out"' EXIT
cd "$ROOT" || exit 1
"$PY" tests/python/taskcheck.py --device cpu --emulate --small --out "$out" \
	tasks/triton2triton tasks/torch2triton tasks/instruction2triton \
	tasks/torch2cuda tasks/torch2hip > "$out/stdout" 2>&1
rc=$?
tail -n 1 "$out/stdout"
[ $rc -eq 0 ] || cat "$out/stdout"
exit $rc
