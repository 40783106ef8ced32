#!/bin/sh
# tests/e2e/gpu_builds.sh - every GPU task of the tree (hip2hip, cuda2cuda,
# instruction2hip, ...) compiles without a GPU: HIP sources with hipcc for
# gfx90a and with nvcc for sm_90 through arena's HIP-on-NVIDIA portability
# header, CUDA sources with nvcc, for the plain build and every tunable
# value, plus GPU references and timing baselines.  The work is done by
# scripts/check-gpu-builds.sh; this test fails if any build fails and is
# skipped (exit 77) when neither hipcc nor nvcc is installed.  JOBS sets the
# parallelism (default 2).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ARENA_TASKS_DIR="$ROOT/tasks" exec sh "$ROOT/scripts/check-gpu-builds.sh" \
	-j "${JOBS:-2}"
