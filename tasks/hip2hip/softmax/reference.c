/*
 * softmax - trusted reference: row-wise softmax computed entirely in
 * double (max, exp, sum, divide), rounded to float once per element.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 2 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || args[0].numel != rows * cols ||
	    args[1].numel != rows * cols || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data;
	float *y = args[1].data;
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		float *yr = y + r * cols;
		double m = -INFINITY;
		for (int64_t c = 0; c < cols; c++)
			m = fmax(m, (double)xr[c]);
		double s = 0.0;
		for (int64_t c = 0; c < cols; c++)
			s += exp((double)xr[c] - m);
		for (int64_t c = 0; c < cols; c++)
			yr[c] = (float)(exp((double)xr[c] - m) / s);
	}
	return 0;
}
