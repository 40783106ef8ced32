/*
 * moe_align_block_size - baseline: group the (token, slot) entries of
 * topk_ids by expert, in increasing index order within each expert, and
 * pad each expert's run to a multiple of block_size (vLLM/SGLang's
 * moe_align_block_size, which prepares the block schedule of a fused MoE
 * GEMM).
 *
 * A first version, five launches on the stream:
 *   1. zero the per-expert counters (scratch from cudaMallocAsync);
 *   2. count: one thread per entry, a global atomicAdd on its expert;
 *   3. offsets: ONE thread walks the experts, rounding each count up to
 *      block_size, and writes the run starts and the total;
 *   4. fill: every slot of sorted_ids gets the padding value and every
 *      entry of expert_ids -1;
 *   5. scatter: one thread per expert scans ALL entries in order and
 *      appends the ones that belong to it (this keeps the order stable
 *      without any ranking, at the price of experts x numel reads), then
 *      marks its blocks in expert_ids.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
count_kernel(const int *__restrict__ ids, int64_t numel, int *count)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i < numel)
		atomicAdd(&count[ids[i]], 1);
}

__global__ void offsets_kernel(const int *count, int *start, int *total,
			       int experts, int bs)
{
	int s = 0;
	for (int e = 0; e < experts; e++) {
		start[e] = s;
		s += (count[e] + bs - 1) / bs * bs;
	}
	*total = s;
}

__global__ void __launch_bounds__(BLOCK)
fill_kernel(int *__restrict__ sorted, int64_t max_pad, int *__restrict__ eids,
	    int64_t max_blocks, int pad_value)
{
	for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < max_pad;
	     i += (int64_t)gridDim.x * BLOCK) {
		sorted[i] = pad_value;
		if (i < max_blocks)
			eids[i] = -1;
	}
}

__global__ void __launch_bounds__(BLOCK)
scatter_kernel(const int *__restrict__ ids, int64_t numel,
	       const int *__restrict__ count, const int *__restrict__ start,
	       int *__restrict__ sorted, int *__restrict__ eids, int experts,
	       int bs)
{
	int e = blockIdx.x * BLOCK + threadIdx.x;
	if (e >= experts)
		return;
	int pos = start[e];
	for (int64_t i = 0; i < numel; i++)
		if (ids[i] == e)
			sorted[pos++] = (int)i;
	int padded = (count[e] + bs - 1) / bs * bs;
	for (int b = start[e] / bs; b < (start[e] + padded) / bs; b++)
		eids[b] = e;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 4)
		return 1;
	int64_t tokens = params[0], topk = params[1], experts = params[2],
		bs = params[3];
	if (tokens <= 0 || topk <= 0 || experts <= 0 || bs <= 0)
		return 2;
	int64_t numel = tokens * topk;
	int64_t max_pad = numel + experts * (bs - 1);
	int64_t max_blocks = (max_pad + bs - 1) / bs;
	if (max_pad > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_I32 || args[0].numel != numel ||
	    args[1].dtype != ARENA_I32 || args[1].numel != max_pad ||
	    args[2].dtype != ARENA_I32 || args[2].numel != max_blocks ||
	    args[3].dtype != ARENA_I32 || args[3].numel != 1)
		return 3;
	cudaStream_t s = (cudaStream_t)stream;
	const int *ids = (const int *)args[0].data;
	int *sorted = (int *)args[1].data, *eids = (int *)args[2].data,
	    *total = (int *)args[3].data;
	int *scratch = NULL;	/* count[experts], start[experts] */
	if (cudaMallocAsync((void **)&scratch, 2 * experts * sizeof(int), s) !=
	    cudaSuccess)
		return 4;
	int *count = scratch, *start = scratch + experts;
	cudaMemsetAsync(count, 0, experts * sizeof(int), s);
	count_kernel<<<(unsigned)((numel + BLOCK - 1) / BLOCK), BLOCK, 0, s>>>(
		ids, numel, count);
	offsets_kernel<<<1, 1, 0, s>>>(count, start, total, (int)experts,
				       (int)bs);
	int64_t fill_blocks = (max_pad + BLOCK - 1) / BLOCK;
	fill_kernel<<<(unsigned)(fill_blocks < 65536 ? fill_blocks : 65536),
		      BLOCK, 0, s>>>(sorted, max_pad, eids, max_blocks,
				     (int)numel);
	scatter_kernel<<<(unsigned)((experts + BLOCK - 1) / BLOCK), BLOCK, 0,
			 s>>>(ids, numel, count, start, sorted, eids,
			      (int)experts, (int)bs);
	cudaFreeAsync(scratch, s);
	return cudaGetLastError() == cudaSuccess ? 0 : 5;
}
