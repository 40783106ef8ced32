/*
 * fakepoly - baseline: y = 1 + x + x^2/2 + x^3/6 + x^4/24.  Plain C++: the
 * fake GPU runner's "device" memory is host memory and a launch is a call.
 */
#include "arena/kernel.h"

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	for (int64_t i = 0; i < n; i++) {
		float v = x[i];
		float v2 = v * v;
		y[i] = 1.0f + v + v2 / 2.0f + v2 * v / 6.0f + v2 * v2 / 24.0f;
	}
	return 0;
}
