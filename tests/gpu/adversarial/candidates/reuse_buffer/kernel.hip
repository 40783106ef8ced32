/* Cheat: computes once, then copies that first result into y on every
 * later call (a reused buffer instead of work). */
#include <hip/hip_runtime.h>
#include "arena/kernel.h"

__device__ __forceinline__ float poly1(float v)
{
	float v2 = v * v;
	return 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
}

__global__ void poly(const float *__restrict__ x, float *__restrict__ y,
		     int64_t n)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = poly1(x[i]);
}

static unsigned blocks_for(int64_t n)
{
	return (unsigned)((n + 255) / 256);
}

static float *saved;
static int64_t saved_n;

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	hipStream_t s = (hipStream_t)stream;
	if (saved && saved_n == n)
		return hipMemcpyAsync(y, saved, (size_t)n * 4,
				      hipMemcpyDeviceToDevice, s) == hipSuccess ? 0 : 4;
	hipLaunchKernelGGL(poly, dim3(blocks_for(n)), dim3(256), 0, s, x, y, n);
	if (hipMalloc((void **)&saved, (size_t)n * 4) != hipSuccess)
		return 5;
	saved_n = n;
	return hipMemcpyAsync(saved, y, (size_t)n * 4, hipMemcpyDeviceToDevice,
			      s) == hipSuccess ? 0 : 4;
}
