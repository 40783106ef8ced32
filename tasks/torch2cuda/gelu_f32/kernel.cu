/*
 * gelu_f32 - baseline: one thread per element, the tanh form of GELU as
 * written, tanhf from the math library.
 */
#include <cuda_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
gelu_kernel(const float *x, float *y, long long n)
{
	long long i = (long long)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i];
	float inner = 0.7978845608028654f * (v + 0.044715f * v * v * v);
	y[i] = 0.5f * v * (1.0f + tanhf(inner));
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 1)
		return 1;
	long long n = params[0];
	if (n <= 0 || (n + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != n ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n)
		return 3;
	gelu_kernel<<<(unsigned)((n + BLOCK - 1) / BLOCK), BLOCK, 0,
		      (cudaStream_t)stream>>>((const float *)args[0].data,
					      (float *)args[1].data, n);
	return cudaGetLastError() == cudaSuccess ? 0 : 4;
}
