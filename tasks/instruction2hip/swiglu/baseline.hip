/*
 * swiglu - timing baseline (not shown to the agent as a starting point):
 * y[r][j] = silu(x[r][j]) * x[r][d + j].  One thread per output element,
 * flat index decoded with a 64-bit division, scalar loads, expf and a
 * true division.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
swiglu_kernel(const float *__restrict__ x, float *__restrict__ y,
	      int64_t total, int64_t d)
{
	int64_t e = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (e >= total)
		return;
	int64_t r = e / d, j = e - r * d;
	float g = x[r * 2 * d + j], u = x[r * 2 * d + d + j];
	y[e] = g / (1.0f + expf(-g)) * u;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], d = params[1];
	if (rows <= 0 || d <= 0)
		return 2;
	int64_t total = rows * d;
	if ((total + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != 2 * total ||
	    args[1].dtype != ARENA_F32 || args[1].numel != total)
		return 3;
	hipLaunchKernelGGL(swiglu_kernel, dim3((unsigned)((total + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (float *)args[1].data,
			   total, d);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
