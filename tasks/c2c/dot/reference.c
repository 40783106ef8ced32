/*
 * dot - trusted reference: the dot product summed pairwise in double
 * (recursive halving), so its rounding error grows with log n, not n.
 */
#include "arena/kernel.h"

static double dot_pairwise(const float *x, const float *y, int64_t n)
{
	if (n <= 64) {
		double s = 0.0;
		for (int64_t i = 0; i < n; i++)
			s += (double)x[i] * (double)y[i];
		return s;
	}
	int64_t h = n / 2;
	return dot_pairwise(x, y, h) + dot_pairwise(x + h, y + h, n - h);
}

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 1)
		return 1;
	int64_t n = params[0];
	if (n <= 0 || args[0].numel != n || args[1].numel != n ||
	    args[2].numel != 1 || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32 || args[2].dtype != ARENA_F64)
		return 2;
	*(double *)args[2].data = dot_pairwise(args[0].data, args[1].data, n);
	return 0;
}
