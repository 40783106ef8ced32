/*
 * Cheat: correct only while watched (issue 10, item 3).  It counts the
 * samples of each case on the host (a sample starts when the first input
 * set's buffer comes round again) and is exact for the first four - the
 * correctness trials and the ordering check, or a timing block's
 * warm-up - and approximate from the fifth on: every output off by 1.5x
 * the task's tolerance, which passes the comparison with the baseline's
 * outputs (2x) but not the reference's (1x).  Timed samples are checked
 * against the reference at random, at least one per block.
 */
#include <hip/hip_runtime.h>
#include <stdint.h>
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

static int64_t last_n = -1;
static const void *first_x;
static int samples;

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	if (n != last_n) {
		last_n = n;
		first_x = x;
		samples = 0;
	}
	if (x == first_x)
		samples++;
	hipLaunchKernelGGL(poly, dim3((unsigned)((n + 255) / 256)), dim3(256),
			   0, (hipStream_t)stream, x, (float *)args[1].data, n,
			   samples > 4);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
