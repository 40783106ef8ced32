#!/bin/sh
# tests/gpu/profile_eval.sh - where an evaluation's time goes on a GPU: runs
# `arena eval TASK --aa` for each TASK one after another, twice (the second
# pass finds the store's reference cache warm), and prints each evaluation's
# wall time and its phase stamps (timing.tsv's comment lines).  Also checks
# that the device supports stream-ordered allocation (cudaMallocAsync),
# which some baselines use for scratch.
#
# usage: OUT=DIR [DEADLINE=420] sh tests/gpu/profile_eval.sh [TASK...]
#   no evaluation starts after DEADLINE seconds
. "$(dirname "$0")/lib.sh"
tasks=${*:-cuda2cuda/gemm_f32 cuda2cuda/dot hip2hip/flash_attn_fwd_bf16 cuda2cuda/cross_entropy_fwd_bwd}
P=$OUT/profile.txt
: > "$P"
W=$OUT/w
mkdir -p "$W"
if command -v nvcc > /dev/null 2>&1; then
	cat > "$W/mallocasync.cu" <<'CU'
#include <cstdio>
#include <cuda_runtime.h>
int main()
{
	int pools = -1;
	cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0);
	void *p = nullptr;
	cudaError_t e = cudaMallocAsync(&p, 2048, 0);
	printf("memory pools supported: %d; cudaMallocAsync(2 KiB): %s\n",
	       pools, cudaGetErrorString(e));
	return e != cudaSuccess;
}
CU
	nvcc -o "$W/mallocasync" "$W/mallocasync.cu" >> "$P" 2>&1 &&
		"$W/mallocasync" >> "$P" 2>&1
fi
store=$STORE/profile
rm -rf "$store"
t_end=$(($(date +%s) + ${DEADLINE:-420}))
for pass in 1 2; do
	for t in $tasks; do
		[ "$(date +%s)" -lt "$t_end" ] || { echo "== $t pass $pass: not run (deadline)" >> "$P"; continue; }
		logs=$W/$(echo "$t" | tr / _)-$pass
		rm -rf "$logs"
		t0=$(now)
		"$ARENA" --store "$store" eval "$t" --aa --no-cache \
			--case-budget "${CASE_BUDGET:-0.3}" --logs "$logs" \
			> "$logs.yaml" 2>&1
		{
			echo "== $t pass $pass: $(elapsed "$t0") s, status $(field status < "$logs.yaml"), speedup $(field speedup_ratio < "$logs.yaml")"
			grep '^#' "$logs/timing.tsv" 2>/dev/null | grep -v 'trial [2-9]' | cut -c1-150
		} >> "$P"
	done
done
tar -czf "$OUT/profile.tgz" -C "$W" . 2>/dev/null
cat "$P"
