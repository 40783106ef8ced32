#!/bin/sh
# tests/e2e/gpu_builds.sh - every GPU task of the tree (hip2hip, cuda2cuda,
# instruction2hip, ...) compiles without a GPU: HIP sources with hipcc for
# gfx90a and with nvcc for sm_90 through arena's HIP-on-NVIDIA portability
# header, CUDA sources with nvcc, for the plain build and every tunable
# value, plus GPU references and baseline.files.  The work is done by
# scripts/check-gpu-builds.sh; this test fails if any build fails and is
# skipped (exit 77) when neither hipcc nor nvcc is installed.  JOBS sets the
# parallelism (default 2); GPU_BUILDS_QUICK=1 builds each source once per
# compiler instead of sweeping the tunables (about a third of the time;
# the full set is ~200 CPU-seconds).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
quick=
[ "${GPU_BUILDS_QUICK:-0}" = 1 ] && quick=-q
# shellcheck disable=SC2086
ARENA_TASKS_DIR="$ROOT/tasks" exec sh "$ROOT/scripts/check-gpu-builds.sh" \
	-j "${JOBS:-2}" $quick
