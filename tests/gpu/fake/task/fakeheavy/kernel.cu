/*
 * fakeheavy - baseline: k steps of y <- 0.999 y + 0.001 x per element, in
 * double.  Plain C++: the fake GPU runner's "device" memory is host
 * memory and a launch is a call.
 */
#include "arena/kernel.h"

extern "C" ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
					 const int64_t *params, int nparams,
					 void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t n = params[0], k = params[1];
	const float *x = (const float *)args[0].data;
	float *y = (float *)args[1].data;
	for (int64_t i = 0; i < n; i++) {
		double v = 0, xi = x[i];
		for (int64_t j = 0; j < k; j++)
			v = v * 0.999 + xi * 0.001;
		y[i] = (float)v;
	}
	return 0;
}
