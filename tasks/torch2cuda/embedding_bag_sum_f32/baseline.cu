/*
 * embedding_bag_sum_f32 - timing baseline: one thread per output element
 * (b, d); it walks the bag, loading each index (all threads of a row load
 * the same ones) and one float of the indexed row.  No vector loads, no
 * reuse of the indices through shared memory.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
bag_sum(const float *__restrict__ table, const int64_t *__restrict__ idx,
	float *__restrict__ out, int64_t dim, int64_t bag, int64_t total)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t b = e / dim, d = e - b * dim;
	const int64_t *row = idx + b * bag;
	float acc = 0.0f;
	for (int64_t j = 0; j < bag; j++)
		acc += table[row[j] * dim + d];
	out[e] = acc;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 4)
		return 1;
	int64_t num_emb = params[0], dim = params[1], batch = params[2],
		bag = params[3];
	if (num_emb <= 0 || dim <= 0 || batch <= 0 || bag <= 0)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != num_emb * dim ||
	    args[1].dtype != ARENA_I64 || args[1].numel != batch * bag ||
	    args[2].dtype != ARENA_F32 || args[2].numel != batch * dim)
		return 3;
	int64_t total = batch * dim, blocks = (total + BLOCK - 1) / BLOCK;
	bag_sum<<<(unsigned)blocks, BLOCK, 0, (cudaStream_t)stream>>>(
		(const float *)args[0].data, (const int64_t *)args[1].data,
		(float *)args[2].data, dim, bag, total);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
