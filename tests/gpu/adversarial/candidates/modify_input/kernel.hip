/* Cheat: scribbles on its input (x) while computing y. */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

__global__ void poly_clobber(float *x, float *y, int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i], v2 = v * v;
	y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	x[i] = 0.0f;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	hipLaunchKernelGGL(poly_clobber, dim3((unsigned)((n + 255) / 256)),
			   dim3(256), 0, (hipStream_t)stream, (float *)x, y, n);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
