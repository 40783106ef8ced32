/* Honest, but its calls cannot be captured (as a kernel that waits for
 * the device inside its call cannot be, on a GPU): every call made while
 * the runner captures a batch fails.  Its batches then run live, and so
 * do the baseline's (docs/gpu.md section 6, "A batch captured before its
 * inputs exist"): the verdict is an honest one. */
#include "arena/kernel.h"

extern "C" int arena_fake_gpu_capturing(void);

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)nargs, (void)nparams, (void)stream;
	if (arena_fake_gpu_capturing())
		return 7;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i], v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}
