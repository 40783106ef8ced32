/*
 * saxpy - baseline: y = alpha * x + y (float32, in place on y), alpha a
 * device scalar.
 *
 * Naive on purpose: one thread per element, scalar 4-byte loads and
 * stores, and every thread reloads alpha from global memory.
 */
#include <cuda_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
saxpy_kernel(const float *alpha, const float *x, float *y, long long n)
{
	long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
	if (i < n)
		y[i] = *alpha * x[i] + y[i];
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 3 || nparams != 1)
		return 1;
	long long n = params[0];
	if (n <= 0 || (n + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != 1 ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n ||
	    args[2].dtype != ARENA_F32 || args[2].numel != n)
		return 3;
	unsigned grid = (unsigned)((n + BLOCK - 1) / BLOCK);
	saxpy_kernel<<<grid, BLOCK, 0, (cudaStream_t)stream>>>(
		(const float *)args[0].data, (const float *)args[1].data,
		(float *)args[2].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
