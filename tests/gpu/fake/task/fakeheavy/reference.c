/*
 * fakeheavy - trusted reference: the same steps in double, rounded once.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2 || args[0].numel != params[0] ||
	    args[1].numel != params[0] || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32)
		return 1;
	int64_t n = params[0], k = params[1];
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t i = 0; i < n; i++) {
		double v = 0, xi = x[i];
		for (int64_t j = 0; j < k; j++)
			v = v * 0.999 + xi * 0.001;
		y[i] = (float)v;
	}
	return 0;
}
