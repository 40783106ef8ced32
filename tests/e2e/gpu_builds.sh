#!/bin/sh
# tests/e2e/gpu_builds.sh - every GPU task of the tree (hip2hip, cuda2cuda,
# instruction2hip, ...) compiles without a GPU: HIP sources with hipcc for
# gfx90a and with nvcc for sm_90 through arena's HIP-on-NVIDIA portability
# header, CUDA sources with nvcc, plus GPU references and baseline.files.
# The work is done by scripts/check-gpu-builds.sh; this test fails if any
# build fails and is
# skipped (exit 77) when neither hipcc nor nvcc is installed.  JOBS sets the
# parallelism (default 2).  By default each source is built once per
# compiler, the plain build the evaluator makes of a baseline (~310 builds,
# about 1 CPU-second each); GPU_BUILDS_FULL=1 also sweeps every tunable
# value (the cross product, ~840 builds since the LLM-stack tasks: too long
# for CI on 2 cores, run by hand or before a release).  About 330 builds
# since the Python tasks' CUDA/HIP ones: up to 7 s each on a loaded 2-core
# machine, so this test gets more than run.sh's default 600 s.
# test-timeout: 1500
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
quick=-q
[ "${GPU_BUILDS_FULL:-0}" = 1 ] && quick=""
# shellcheck disable=SC2086
ARENA_TASKS_DIR="$ROOT/tasks" exec sh "$ROOT/scripts/check-gpu-builds.sh" \
	-j "${JOBS:-2}" $quick
