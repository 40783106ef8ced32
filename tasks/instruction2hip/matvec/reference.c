/*
 * matvec - trusted reference: every dot product accumulated in double
 * (products of floats are exact in double), rounded to float once.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 2)
		return 1;
	int64_t m = params[0], n = params[1];
	if (m <= 0 || n <= 0 || args[0].numel != m * n || args[1].numel != n ||
	    args[2].numel != m || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32 || args[2].dtype != ARENA_F32)
		return 2;
	const float *a = args[0].data, *x = args[1].data;
	float *y = args[2].data;
	for (int64_t i = 0; i < m; i++) {
		double s = 0.0;
		for (int64_t j = 0; j < n; j++)
			s += (double)a[i * n + j] * (double)x[j];
		y[i] = (float)s;
	}
	return 0;
}
