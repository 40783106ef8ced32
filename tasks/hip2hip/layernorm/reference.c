/*
 * layernorm - trusted reference: mean and biased variance of each row in
 * double (two passes), normalization in double, rounded to float once.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 4 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || args[0].numel != rows * cols ||
	    args[1].numel != cols || args[2].numel != cols ||
	    args[3].numel != rows * cols || args[0].dtype != ARENA_F32 ||
	    args[1].dtype != ARENA_F32 || args[2].dtype != ARENA_F32 ||
	    args[3].dtype != ARENA_F32)
		return 2;
	const float *x = args[0].data, *g = args[1].data, *b = args[2].data;
	float *y = args[3].data;
	for (int64_t r = 0; r < rows; r++) {
		const float *xr = x + r * cols;
		double mean = 0.0, var = 0.0;
		for (int64_t c = 0; c < cols; c++)
			mean += xr[c];
		mean /= (double)cols;
		for (int64_t c = 0; c < cols; c++)
			var += ((double)xr[c] - mean) * ((double)xr[c] - mean);
		var /= (double)cols;
		double rstd = 1.0 / sqrt(var + 1e-5);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] = (float)(((double)xr[c] - mean) * rstd *
						  (double)g[c] + (double)b[c]);
	}
	return 0;
}
