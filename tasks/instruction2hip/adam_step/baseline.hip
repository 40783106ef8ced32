/*
 * adam_step - timing baseline: one thread per element, scalar loads and
 * stores; the bias corrections 1 - beta^t are computed in double on the
 * host and passed in as float.
 */
#include <hip/hip_runtime.h>
#include <math.h>
#include "arena/kernel.h"

#ifndef BLOCK
#define BLOCK 256
#endif

__global__ void __launch_bounds__(BLOCK)
adam_kernel(float *__restrict__ p, const float *__restrict__ g,
	    float *__restrict__ m, float *__restrict__ v, int64_t n,
	    float bc1, float bc2)
{
	int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x;
	if (i >= n)
		return;
	float gi = g[i];
	float mi = 0.9f * m[i] + 0.1f * gi;
	float vi = 0.999f * v[i] + 0.001f * gi * gi;
	m[i] = mi;
	v[i] = vi;
	float mhat = mi / bc1, vhat = vi / bc2;
	p[i] = p[i] - 1e-3f * mhat / (sqrtf(vhat) + 1e-8f);
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t n = params[0], step = params[1];
	if (n <= 0 || step < 1 || (n + BLOCK - 1) / BLOCK > 0x7fffffff)
		return 2;
	for (int i = 0; i < 4; i++)
		if (args[i].dtype != ARENA_F32 || args[i].numel != n)
			return 3;
	float bc1 = (float)(1.0 - pow(0.9, (double)step));
	float bc2 = (float)(1.0 - pow(0.999, (double)step));
	hipLaunchKernelGGL(adam_kernel, dim3((unsigned)((n + BLOCK - 1) / BLOCK)),
			   dim3(BLOCK), 0, (hipStream_t)stream,
			   (float *)args[0].data, (const float *)args[1].data,
			   (float *)args[2].data, (float *)args[3].data, n, bc1,
			   bc2);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
