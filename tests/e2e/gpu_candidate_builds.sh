#!/bin/sh
# tests/e2e/gpu_candidate_builds.sh - the GPU candidates that only a GPU
# can evaluate (tests/gpu/adversarial/candidates, for the HIP task
# tests/gpu/adversarial/task/vecpoly_hip, and tests/gpu/honest, for
# tasks of the tree), and the standalone probes tests/gpu/*.cu, compile
# here, the candidates the way the evaluator builds them for
# an H200: HIP sources with nvcc -x cu through arena's HIP-on-NVIDIA
# portability header, CUDA sources with nvcc, -arch=sm_90; with
# GPU_CANDIDATE_HIPCC=1, HIP sources also with hipcc for gfx90a (twice the
# time: about 40 CPU-seconds each way on the build VM).  So a broken cheat
# is found in CI, not in the GPU machine's scarce minutes
# (tests/gpu/integrity.sh runs them there).  Exit 77 without nvcc.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
HIPCC=none
[ "${GPU_CANDIDATE_HIPCC:-0}" = 1 ] &&
	HIPCC=${HIPCC:-$(command -v hipcc || echo /opt/rocm/bin/hipcc)}
if [ ! -x "$NVCC" ]; then
	echo "skip: nvcc is not installed"
	exit 77
fi
tmp=$(mktemp -d /tmp/arena-gpu-cand-XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
# hipcc leaves an empty <stem>-XXXXXX directory in $TMPDIR per compile.
mkdir "$tmp/tmp" && export TMPDIR="$tmp/tmp"
inc=$ROOT/engine/include
fail=0 n=0
for src in "$ROOT"/tests/gpu/adversarial/candidates/*/kernel.hip \
	"$ROOT"/tests/gpu/honest/*/kernel.*; do
	[ -f "$src" ] || continue
	name=${src#"$ROOT"/tests/gpu/}
	n=$((n + 1))
	case $src in
	*.hip) set -- -x cu -I"$inc/arena/hip_nvidia" ;;
	*) set -- ;;
	esac
	if ! "$NVCC" "$@" -O2 -shared -Xcompiler -fPIC -arch=sm_90 -I"$inc" \
		-o "$tmp/k.so" "$src" > "$tmp/log" 2>&1; then
		echo "FAIL nvcc $name"; sed 's/^/    /' "$tmp/log" | head -20
		fail=1
		continue
	fi
	echo "PASS nvcc $name"
	case $src in *.hip) ;; *) continue ;; esac
	[ -x "$HIPCC" ] || continue
	if ! "$HIPCC" --offload-arch=gfx90a -O2 -shared -fPIC -I"$inc" \
		-o "$tmp/k.so" -x hip "$src" > "$tmp/log" 2>&1; then
		echo "FAIL hipcc $name"; sed 's/^/    /' "$tmp/log" | head -20
		fail=1
		continue
	fi
	echo "PASS hipcc $name"
done
# The GPU machine's standalone probes (tests/gpu/*.cu), linked as a device
# call runs them (here against the driver's stub library).
stubs=$(dirname "$NVCC")/../lib64/stubs
for src in "$ROOT"/tests/gpu/*.cu; do
	[ -f "$src" ] || continue
	name=${src#"$ROOT"/tests/gpu/}
	n=$((n + 1))
	if ! "$NVCC" -O2 -arch=sm_90 -o "$tmp/probe" "$src" -L"$stubs" -lcuda \
		> "$tmp/log" 2>&1; then
		echo "FAIL nvcc $name"; sed 's/^/    /' "$tmp/log" | head -20
		fail=1
		continue
	fi
	echo "PASS nvcc $name"
done
echo "gpu candidate builds: $n sources, $([ $fail = 0 ] && echo all built || echo FAILED)"
exit $fail
