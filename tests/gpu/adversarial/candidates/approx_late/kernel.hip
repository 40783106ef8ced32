/*
 * Cheat: correct only while watched (issue 10, item 3).  It counts the
 * samples of each case on the host (a sample starts when more than 1 ms
 * passed since its previous call: the calls of a batch come microseconds
 * apart, samples are separated by the keeper's flush; arena places the
 * buffers at another offset in every sample, so pointers do not tell)
 * and is exact for the first four - the
 * correctness trials and the ordering check, or a timing block's
 * warm-up - and approximate from the fifth on: every output off by 1.5x
 * the task's tolerance, which passes the comparison with the baseline's
 * outputs (2x) but not the reference's (1x).  Timed samples are checked
 * against the reference at random, at least one per block.
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
static int samples;

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

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
		samples = 0;
		last_call_ns = 0;
	}
	if (t - last_call_ns > 1000000)
		samples++;
	last_call_ns = t;
	hipLaunchKernelGGL(poly, dim3((unsigned)((n + 255) / 256)), dim3(256),
			   0, (hipStream_t)stream, x, (float *)args[1].data, n,
			   samples > 4);
	return hipGetLastError() == hipSuccess ? 0 : 4;
}
