/*
 * embedding_gather - baseline: out[t][d] = table[ids[t]][d].
 *
 * Naive on purpose: one thread per output element, decoded from a flat
 * index with a 64-bit division; every thread reloads the token's id and
 * copies one float with a scalar load and store.  An id outside
 * [0, vocab) writes 0 instead of reading out of bounds.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
gather_kernel(const int *__restrict__ ids, const float *__restrict__ table,
	      float *__restrict__ out, int64_t total, int64_t vocab,
	      int64_t dim)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t t = e / dim, d = e - t * dim;
	int64_t id = ids[t];
	out[e] = (id >= 0 && id < vocab) ? table[id * dim + d] : 0.0f;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t tokens = params[0], vocab = params[1], dim = params[2];
	if (tokens <= 0 || vocab <= 0 || dim <= 0)
		return 2;
	int64_t total = tokens * dim;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_I32 || args[0].numel != tokens ||
	    args[1].dtype != ARENA_F32 || args[1].numel != vocab * dim ||
	    args[2].dtype != ARENA_F32 || args[2].numel != total)
		return 3;
	hipLaunchKernelGGL(gather_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const int *)args[0].data, (const float *)args[1].data,
			   (float *)args[2].data, total, vocab, dim);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
