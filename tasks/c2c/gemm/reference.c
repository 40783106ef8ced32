/*
 * gemm - trusted reference: C = A * B, every dot product accumulated in
 * double and rounded to float once.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 3 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || args[0].numel != m * k ||
	    args[1].numel != k * n || args[2].numel != m * n ||
	    args[0].dtype != ARENA_F32 || args[1].dtype != ARENA_F32 ||
	    args[2].dtype != ARENA_F32)
		return 2;
	const float *a = args[0].data, *b = args[1].data;
	float *c = args[2].data;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			double s = 0.0;
			for (int64_t p = 0; p < k; p++)
				s += (double)a[i * k + p] * (double)b[p * n + j];
			c[i * n + j] = (float)s;
		}
	return 0;
}
