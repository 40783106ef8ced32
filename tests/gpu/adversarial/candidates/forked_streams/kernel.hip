/* Honest: splits the work over a stream of its own and the given one,
   ordered both ways with events (fork after the given stream's earlier
   work, join before returning).  The ordering check must accept it. */
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

static hipStream_t side;
static hipEvent_t forked, joined;

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	hipStream_t s = (hipStream_t)stream;
	int64_t n = params[0], half = n / 2;
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;

	if (!side &&
	    (hipStreamCreateWithFlags(&side, hipStreamNonBlocking) != hipSuccess ||
	     hipEventCreateWithFlags(&forked, hipEventDisableTiming) != hipSuccess ||
	     hipEventCreateWithFlags(&joined, hipEventDisableTiming) != hipSuccess))
		return 5;
	hipEventRecord(forked, s);
	hipStreamWaitEvent(side, forked, 0);
	hipLaunchKernelGGL(poly, dim3(blocks_for(half)), dim3(256), 0, side, x, y,
			   half);
	hipLaunchKernelGGL(poly, dim3(blocks_for(n - half)), dim3(256), 0, s,
			   x + half, y + half, n - half);
	hipEventRecord(joined, side);
	hipStreamWaitEvent(s, joined, 0);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
