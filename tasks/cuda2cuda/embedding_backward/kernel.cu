/*
 * embedding_backward - baseline: the dense gradient of an embedding table,
 * dweight[ids[t]] += dy[t] for every token, zero elsewhere (PyTorch's
 * embedding_dense_backward, the first op of an LLM's backward pass).
 *
 * A first version: cudaMemsetAsync zeroes all of dweight, then one thread
 * per element of dy does a float32 atomicAdd into its token's row.  The
 * whole table is written twice (memset, then the atomics' read-modify-
 * write on the rows that occur), and tokens that share an id contend for
 * the same addresses.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
scatter_add(const int *__restrict__ ids, const float *__restrict__ dy,
	    float *__restrict__ dw, int64_t total, int64_t dim)
{
	for (int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x; e < total;
	     e += (int64_t)gridDim.x * BLOCK) {
		int64_t t = e / dim, d = e % dim;
		atomicAdd(&dw[(int64_t)ids[t] * dim + d], dy[e]);
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 4)
		return 1;
	int64_t tokens = params[0], vocab = params[1], dim = params[2];
	if (tokens <= 0 || vocab <= 0 || dim <= 0)
		return 2;
	if (args[0].dtype != ARENA_I32 || args[0].numel != tokens ||
	    args[1].dtype != ARENA_F32 || args[1].numel != tokens * dim ||
	    args[2].dtype != ARENA_F32 || args[2].numel != vocab * dim)
		return 3;
	cudaStream_t s = (cudaStream_t)stream;
	float *dw = (float *)args[2].data;
	cudaMemsetAsync(dw, 0, (size_t)(vocab * dim) * sizeof(float), s);
	int64_t total = tokens * dim;
	int64_t blocks = (total + BLOCK - 1) / BLOCK;
	if (blocks > 1048576)
		blocks = 1048576;	/* grid-stride beyond this */
	scatter_add<<<(unsigned)blocks, BLOCK, 0, s>>>(
		(const int *)args[0].data, (const float *)args[1].data, dw,
		total, dim);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
