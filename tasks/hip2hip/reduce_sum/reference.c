/*
 * reduce_sum - trusted reference: the sum accumulated in double with
 * Kahan-Babuska (Neumaier) compensation, so it is the exact sum rounded to
 * double for all practical purposes.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || args[0].numel != n || args[1].numel != 1 ||
	    args[0].dtype != ARENA_F32 || args[1].dtype != ARENA_F64)
		return 2;
	const float *x = args[0].data;
	double s = 0.0, c = 0.0;
	for (int64_t i = 0; i < n; i++) {
		double v = x[i], t = s + v;
		if (fabs(s) >= fabs(v))
			c += (s - t) + v;
		else
			c += (v - t) + s;
		s = t;
	}
	*(double *)args[1].data = s + c;
	return 0;
}
