/*
 * moe_permute_bf16 - baseline: stable counting sort of the tokens*k
 * (token, slot) pairs by expert, and a copy of each token's row to every
 * position it was sorted to.
 *
 * Naive on purpose, four launches on the stream:
 *   1. count: one global atomicAdd per pair into expert_offsets[e + 1]
 *      (zeroed first with hipMemsetAsync);
 *   2. scan: one thread turns the counts into offsets;
 *   3. rank: one block per expert scans ALL pair ids, BLOCK at a time, and
 *      places the pairs of its expert in order with warp ballots;
 *   4. gather: one block per permuted row copies the token row with 2-byte
 *      loads and stores.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
count_kernel(const int *__restrict__ ids, int *__restrict__ offsets,
	     int64_t pairs)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i < pairs)
		atomicAdd(&offsets[ids[i] + 1], 1);
}

__global__ void scan_kernel(int *offsets, int experts)
{
	for (int e = 1; e <= experts; e++)
		offsets[e] += offsets[e - 1];
}

__global__ void __launch_bounds__(BLOCK)
rank_kernel(const int *__restrict__ ids, const int *__restrict__ offsets,
	    int *__restrict__ src_idx, int64_t pairs)
{
	__shared__ int warp_count[BLOCK];	/* one slot per warp is used */
	__shared__ int warp_base[BLOCK];
	int e = blockIdx.x, lane = threadIdx.x % warpSize;
	int warp = threadIdx.x / warpSize, nwarps = BLOCK / warpSize;
	unsigned long long below = (1ull << lane) - 1;	/* lanes < this one */
	int64_t next = offsets[e];

	for (int64_t base = 0; base < pairs; base += BLOCK) {
		int64_t i = base + threadIdx.x;
		int mine = i < pairs && ids[i] == e;
		unsigned long long mask = __ballot(mine);
		if (lane == 0)
			warp_count[warp] = __popcll(mask);
		__syncthreads();
		if (threadIdx.x == 0) {
			int run = 0;
			for (int w = 0; w < nwarps; w++) {
				warp_base[w] = run;
				run += warp_count[w];
			}
			warp_base[nwarps] = run;
		}
		__syncthreads();
		if (mine)
			src_idx[next + warp_base[warp] + __popcll(mask & below)] =
				(int)i;
		next += warp_base[nwarps];
		__syncthreads();	/* warp_base is rewritten next round */
	}
}

__global__ void __launch_bounds__(BLOCK)
gather_kernel(const uint16_t *__restrict__ hidden_states,
	      const int *__restrict__ src_idx, uint16_t *__restrict__ permuted,
	      int64_t hidden, int64_t k)
{
	int64_t p = blockIdx.x;
	const uint16_t *src = hidden_states + (src_idx[p] / k) * hidden;
	uint16_t *dst = permuted + p * hidden;
	for (int64_t c = threadIdx.x; c < hidden; c += BLOCK)
		dst[c] = src[c];
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 5 || nparams != 4)
		return 1;
	int64_t tokens = params[0], hidden = params[1], experts = params[2];
	int64_t k = params[3];
	if (tokens <= 0 || hidden <= 0 || experts <= 0 || experts > 0x7fffffff ||
	    k <= 0 || tokens * k > 0x7fffffff)
		return 2;
	int64_t pairs = tokens * k;
	if (args[0].dtype != ARENA_BF16 || args[0].numel != tokens * hidden ||
	    args[1].dtype != ARENA_I32 || args[1].numel != pairs ||
	    args[2].dtype != ARENA_BF16 || args[2].numel != pairs * hidden ||
	    args[3].dtype != ARENA_I32 || args[3].numel != pairs ||
	    args[4].dtype != ARENA_I32 || args[4].numel != experts + 1)
		return 3;
	hipStream_t s = (hipStream_t)stream;
	const int *ids = (const int *)args[1].data;
	int *src_idx = (int *)args[3].data, *offsets = (int *)args[4].data;
	if (hipMemsetAsync(offsets, 0, (size_t)(experts + 1) * sizeof(int), s) !=
	    hipSuccess)
		return 4;
	hipLaunchKernelGGL(count_kernel, dim3((unsigned)((pairs + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, s, ids, offsets, pairs);
	hipLaunchKernelGGL(scan_kernel, dim3(1), dim3(1), 0, s, offsets,
			   (int)experts);
	hipLaunchKernelGGL(rank_kernel, dim3((unsigned)experts), dim3(BLOCK), 0, s,
			   ids, (const int *)offsets, src_idx, pairs);
	hipLaunchKernelGGL(gather_kernel, dim3((unsigned)pairs), dim3(BLOCK), 0, s,
			   (const uint16_t *)args[0].data, (const int *)src_idx,
			   (uint16_t *)args[2].data, hidden, k);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
