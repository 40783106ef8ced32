/*
 * q8_gemv - trusted reference: every block's integer dot product in
 * int64, scaled and summed in double, each output rounded to float once.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 2)
		return 1;
	int64_t n = params[0], k = params[1];
	if (n <= 0 || k <= 0 || k % 32)
		return 2;
	int64_t nb = k / 32;
	if (args[0].numel != n * k || args[1].numel != n * nb ||
	    args[2].numel != k || args[3].numel != nb || args[4].numel != n)
		return 3;
	const int8_t *wq = args[0].data, *xq = args[2].data;
	const float *wd = args[1].data, *xd = args[3].data;
	float *y = args[4].data;
	for (int64_t j = 0; j < n; j++) {
		double acc = 0.0;
		for (int64_t b = 0; b < nb; b++) {
			int64_t isum = 0;
			for (int64_t i = b * 32; i < b * 32 + 32; i++)
				isum += (int64_t)wq[j * k + i] * xq[i];
			acc += (double)isum * wd[j * nb + b] * xd[b];
		}
		y[j] = (float)acc;
	}
	return 0;
}
