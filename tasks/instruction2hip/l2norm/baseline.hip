/*
 * l2norm - timing baseline: one block per row, the sum of squares reduced
 * by a shared-memory tree (a __syncthreads per level), then a second pass
 * over the row dividing by the norm.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
l2norm_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t cols)
{
	__shared__ float s[BLOCK];
	const float *xr = x + (int64_t)blockIdx.x * cols;
	float *yr = y + (int64_t)blockIdx.x * cols;
	float acc = 0.0f;
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		acc += xr[c] * xr[c];
	s[threadIdx.x] = acc;
	__syncthreads();
	for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
		if ((int)threadIdx.x < stride)
			s[threadIdx.x] += s[threadIdx.x + stride];
		__syncthreads();
	}
	float norm = fmaxf(sqrtf(s[0]), 1e-12f);
	for (int64_t c = threadIdx.x; c < cols; c += BLOCK)
		yr[c] = xr[c] / norm;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || rows > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != rows * cols ||
	    args[1].dtype != ARENA_F32 || args[1].numel != rows * cols)
		return 3;
	hipLaunchKernelGGL(l2norm_kernel, dim3((unsigned)rows), dim3(BLOCK), 0,
			   (hipStream_t)stream, (const float *)args[0].data,
			   (float *)args[1].data, cols);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
