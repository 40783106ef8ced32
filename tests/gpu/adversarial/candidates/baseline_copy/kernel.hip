/*
 * vecpoly_hip - baseline: y = 1 + x + x^2/2 + x^3/6 + x^4/24, one thread
 * per element, two divisions each.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void poly(const float *__restrict__ x, float *__restrict__ y,
		     int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i], v2 = v * v;
	y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	hipLaunchKernelGGL(poly, dim3((unsigned)((n + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (float *)args[1].data, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
