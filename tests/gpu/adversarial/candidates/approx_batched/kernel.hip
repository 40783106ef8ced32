/*
 * Cheat: exact when called on one input set, as correctness trials used
 * to call it, and approximate (1.5x the task's tolerance: within the 2x
 * the baseline comparison allows) once it sees a batch of several sets,
 * as timing calls short kernels (issue 10, item 3: phase detection): a
 * call less than 1 ms after the previous one (arena places the buffers
 * at another offset in every sample, so pointers do not tell).
 * Correctness trials now run the timed batch, with a set the candidate
 * cannot know checked against the reference.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
#include <time.h>
#include "arena/kernel.h"

__global__ void poly(const float *__restrict__ x, float *__restrict__ y,
		     int64_t n, int approx)
{
	int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	float v = x[i], v2 = v * v;
	float r = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	y[i] = approx ? r + 1.5e-5f * (1.0f + fabsf(r)) : r;
}

static int64_t last_n = -1, last_call_ns;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static bool batched;

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	int64_t t = now_ns();
	if (n != last_n) {
		last_n = n;
		batched = false;
		last_call_ns = 0;
	}
	if (t - last_call_ns < 1000000)
		batched = true;
	last_call_ns = t;
	hipLaunchKernelGGL(poly, dim3((unsigned)((n + 255) / 256)), dim3(256),
			   0, (hipStream_t)stream, x, (float *)args[1].data, n,
			   batched);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
