/*
 * vecpoly_bias - baseline: the plain polynomial, then scaled by
 * (1 + 0.7e-5): a baseline inside the task's tolerance of the reference
 * but visibly off it, so that the tests can place a candidate between the
 * baseline's tolerance and the reference's.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		double v = x[i];
		double p = 1.0 +
			   v * (1.0 + v * (0.5 + v * (1.0 / 6.0 + v / 24.0)));
		y[i] = (float)(p * (1.0 + 0.7e-5));
	}
	return 0;
}
