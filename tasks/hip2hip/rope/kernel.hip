/*
 * rope - baseline: rotary position embedding, "rotate half" layout, on
 * x [tokens, heads, dim] with cos/sin tables [maxpos, dim/2] indexed by
 * pos[token].
 *
 * Naive on purpose: one thread per output element.  Each thread decodes
 * its flat index with 64-bit divisions, loads its own element and its
 * partner (i +- dim/2) - so every x element is loaded twice - plus the
 * position and one cos and one sin value, all with scalar loads.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
rope_kernel(const float *__restrict__ x, const int *__restrict__ pos,
	    const float *__restrict__ cosv, const float *__restrict__ sinv,
	    float *__restrict__ y, int64_t total, int64_t heads, int64_t dim)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t half = dim / 2;
	int64_t d = e % dim;
	int64_t t = e / (heads * dim);
	int64_t p = pos[t];
	if (d < half) {
		float c = cosv[p * half + d], s = sinv[p * half + d];
		y[e] = x[e] * c - x[e + half] * s;
	} else {
		float c = cosv[p * half + d - half], s = sinv[p * half + d - half];
		y[e] = x[e] * c + x[e - half] * s;
	}
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 5 || nparams != 4)
		return 1;
	int64_t tokens = params[0], heads = params[1], dim = params[2];
	int64_t maxpos = params[3];
	if (tokens <= 0 || heads <= 0 || dim <= 0 || dim % 2 || maxpos <= 0)
		return 2;
	int64_t total = tokens * heads * dim;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != total ||
	    args[1].dtype != ARENA_I32 || args[1].numel != tokens ||
	    args[2].dtype != ARENA_F32 || args[2].numel != maxpos * (dim / 2) ||
	    args[3].dtype != ARENA_F32 || args[3].numel != maxpos * (dim / 2) ||
	    args[4].dtype != ARENA_F32 || args[4].numel != total)
		return 3;
	hipLaunchKernelGGL(rope_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (const int *)args[1].data,
			   (const float *)args[2].data, (const float *)args[3].data,
			   (float *)args[4].data, total, heads, dim);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
