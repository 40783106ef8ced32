/*
 * q4_gemv - trusted reference: every weight decoded from its nibble as
 * (q - 8) * d in double, dot products in double, each output rounded to
 * float once.
 */
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t n = params[0], k = params[1];
	if (n <= 0 || k <= 0 || k % 32)
		return 2;
	int64_t nb = k / 32;
	if (args[0].numel != n * k / 2 || args[1].numel != n * nb ||
	    args[2].numel != k || args[3].numel != n)
		return 3;
	const uint8_t *qw = args[0].data;
	const float *d = args[1].data, *x = args[2].data;
	float *y = args[3].data;
	for (int64_t j = 0; j < n; j++) {
		double acc = 0.0;
		for (int64_t c = 0; c < k; c++) {
			int64_t b = c / 32, i = c % 32;
			uint8_t byte = qw[j * (k / 2) + b * 16 + i % 16];
			int q = i < 16 ? (byte & 15) : (byte >> 4);
			acc += (double)(q - 8) * d[j * nb + b] * x[c];
		}
		y[j] = (float)acc;
	}
	return 0;
}
