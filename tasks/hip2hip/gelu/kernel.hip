/*
 * gelu - baseline: y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
 * over a float32 vector.
 *
 * Naive on purpose: one thread per element, scalar 4-byte loads and
 * stores, one launch with ceil(n / BLOCK) blocks, tanhf from the math
 * library.  Memory-bound: 8 bytes move per element.
 */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
gelu_kernel(const float *__restrict__ x, float *__restrict__ y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= n)
		return;
	const float k0 = 0.7978845608028654f;	/* sqrt(2/pi) */
	const float k1 = 0.044715f;
	float v = x[i];
	float u = k0 * (v + k1 * v * v * v);
	y[i] = 0.5f * v * (1.0f + tanhf(u));
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || (n + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	if (args[0].dtype != ARENA_F32 || args[0].numel != n ||
	    args[1].dtype != ARENA_F32 || args[1].numel != n)
		return 3;
	hipLaunchKernelGGL(gelu_kernel, dim3((unsigned)((n + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (const float *)args[0].data, (float *)args[1].data, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
