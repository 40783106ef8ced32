/*
 * conv1d - trusted reference: y[i] = sum_t h[t] * x[i+t] in double, one
 * rounding to float per output.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t n = params[0], taps = params[1];
	if (taps <= 0 || n < taps || args[0].numel != n ||
	    args[1].numel != taps || args[2].numel != n - taps + 1 ||
	    args[0].dtype != ARENA_F32 || args[1].dtype != ARENA_F32 ||
	    args[2].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data, *h = args[1].data;
	float *y = args[2].data;
	for (int64_t i = 0; i + taps <= n; i++) {
		double s = 0.0;
		for (int64_t t = 0; t < taps; t++)
			s += (double)h[t] * (double)x[i + t];
		y[i] = (float)s;
	}
	return 0;
}
