/* Fault: writes far outside y (an illegal address). */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

__global__ void wild(float *y)
{
	y[threadIdx.x + (1LL << 40)] = 1.0f;
}

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	(void)x, (void)n;
	hipLaunchKernelGGL(wild, dim3(1), dim3(32), 0, (hipStream_t)stream, y);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
