/*
 * rmsnorm_residual - trusted reference: h = x + residual rounded to float
 * (exactly what a float32 add gives), the mean of squares of the float h
 * in double, y in double rounded to float once.
 */
#include <math.h>
#include "arena/kernel.h"

ARENA_EXPORT int arena_launch(const arena_arg *args, int nargs,
			      const int64_t *params, int nparams, void *stream)
{
	(void)stream;
	if (nargs != 5 || nparams != 2)
		return 1;
	int64_t rows = params[0], cols = params[1];
	if (rows <= 0 || cols <= 0 || args[0].numel != rows * cols ||
	    args[1].numel != rows * cols || args[2].numel != cols ||
	    args[3].numel != rows * cols || args[4].numel != rows * cols)
		return 2;
	const float *x = args[0].data, *res = args[1].data, *w = args[2].data;
	float *h = args[3].data, *y = args[4].data;
	for (int64_t r = 0; r < rows; r++) {
		double ss = 0.0;
		for (int64_t c = 0; c < cols; c++) {
			float v = (float)((double)x[r * cols + c] +
					  (double)res[r * cols + c]);
			h[r * cols + c] = v;
			ss += (double)v * v;
		}
		double inv = 1.0 / sqrt(ss / (double)cols + 1e-5);
		for (int64_t c = 0; c < cols; c++)
			y[r * cols + c] =
				(float)((double)h[r * cols + c] * inv * w[c]);
	}
	return 0;
}
