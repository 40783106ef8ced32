/* Cheat: correct work on the given stream, then a 2 ms spin kernel on a
 * side stream that is still running when arena_launch returns (it would
 * slow down whatever is timed next). */
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

__global__ void spin(long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
}

static hipStream_t side;

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	hipStream_t s = (hipStream_t)stream;
	if (!side && hipStreamCreateWithFlags(&side, hipStreamNonBlocking) !=
			     hipSuccess)
		return 5;
	hipLaunchKernelGGL(poly, dim3(blocks_for(n)), dim3(256), 0, s, x, y, n);
	hipLaunchKernelGGL(spin, dim3(1), dim3(1), 0, side, 4000000LL);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
