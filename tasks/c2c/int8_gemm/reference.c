/*
 * int8_gemm - trusted reference: every dot product in int64, scaled in
 * double, rounded to float once.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 3)
		return 1;
	int64_t m = params[0], n = params[1], k = params[2];
	if (m <= 0 || n <= 0 || k <= 0 || args[0].numel != m * k ||
	    args[1].numel != n * k || args[2].numel != m ||
	    args[3].numel != n || args[4].numel != m * n)
		return 2;
	const int8_t *a = args[0].data, *w = args[1].data;
	const float *as = args[2].data, *ws = args[3].data;
	float *c = args[4].data;
	for (int64_t i = 0; i < m; i++)
		for (int64_t j = 0; j < n; j++) {
			int64_t acc = 0;
			for (int64_t p = 0; p < k; p++)
				acc += (int64_t)a[i * k + p] * w[j * k + p];
			c[i * n + j] = (float)((double)acc * as[i] * ws[j]);
		}
	return 0;
}
